"""kt2024 requests, one module per mode (`shoot`, `fight`): importing one registers it.

The package imports neither, so a shooting request never pays for the fight kernels;
`schema.registry.MODE_MODULES` names the module of each mode.
"""

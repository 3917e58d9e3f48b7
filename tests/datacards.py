"""Weapon stat lines typed by hand from the datacards, shared by the tests that compare a
catalog reference with the request a player would write inline.

They are written out, not derived from the catalog code, so a referenced request is checked
against the datacard rather than against the expansion under test.
"""

from __future__ import annotations

POWER_KLAW = {
    "attacks": 4,
    "hit": 3,
    "normalDamage": 5,
    "criticalDamage": 7,
    "brutal": True,
    "shock": True,
}
"""The Kommando Boss Nob's power klaw (kommandos.boss-nob.power-klaw)."""

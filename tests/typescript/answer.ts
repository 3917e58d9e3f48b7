// The README's recipe: openapi-fetch typed by openapi-typescript's `paths` (killmath.d.ts,
// generated from a live /openapi.json by the test). Compiles only if the answers are typed.
import createClient from "openapi-fetch";
import type { paths } from "./killmath";

const api = createClient<paths>({ baseUrl: "http://127.0.0.1:8000" });

export async function expectedDamage(): Promise<number> {
  const { data: answer, error } = await api.POST("/v1/shoot", {
    body: { attacker: { attacks: 4, lethal: 5 }, defender: { save: 3 }, options: { exact: true } },
  });
  if (answer === undefined) {
    return error.errors.length + (error.error.limit ?? 0);
  }
  const exact: string | undefined = answer.expectedDamageExact;
  const first: number = answer.damageDistribution[0].probability;
  const key: string = answer.canonicalKey ?? ""; // absent with Prefer: return=minimal
  return answer.expectedDamage + first + (exact === undefined ? 0 : 1) + key.length;
}

export async function gridAndCatalog(): Promise<number> {
  const grid = await api.POST("/v1/grid", {
    body: { attackers: [{ attacks: 4 }], defenders: [{ save: 3 }], atLeast: [3] },
  });
  const operative = await api.GET("/v1/operatives/{id}", {
    params: { path: { id: "kasrkin.gunner" } },
  });
  // the grid answers JSON or, with Accept: text/csv, a string: narrow before reading cells
  const cells = typeof grid.data === "object" ? grid.data.cells : [];
  return (cells[0]?.damageAtLeast[0].probability ?? 0) + (operative.data?.WOUNDS ?? 0);
}

export async function fightAndTeam(): Promise<number> {
  // a ruleset's own route answers that mode's shape alone: read typed, without narrowing
  const fight = await api.POST("/v1/kt2024/fight", {
    body: { fighterA: { attacks: 4, strategy: "OPTIMAL" }, fighterB: { wounds: 8 } },
  });
  const f = fight.data;
  const incapacitated: number = f === undefined ? 0 : f.fighterA.incapacitatedProbability;
  // /v1/fight answers any ruleset's fight: its closed answers narrow by a member they hold
  const any = (await api.POST("/v1/fight", { body: { fighterA: { attacks: 4 } } })).data;
  const same: number = any !== undefined && "fighterA" in any ? any.fighterA.incapacitatedProbability : 0;
  const team = await api.POST("/v1/team-matchup", {
    body: { attackers: { killTeamId: "kasrkin" }, defenders: { killTeamId: "kommandos" } },
  });
  // JSON, or with Accept: text/csv a string: narrow before reading members
  const names = typeof team.data === "object" ? team.data.operatives.map((o) => o.name) : [];
  const situation: string = typeof team.data === "object" ? team.data.situations[0] : "";
  return incapacitated + same + names.length + situation.length;
}

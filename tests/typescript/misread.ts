// Must NOT compile (TS2339): a member the shoot answer does not have.
import createClient from "openapi-fetch";
import type { paths } from "./killmath";

const api = createClient<paths>({ baseUrl: "http://127.0.0.1:8000" });

export async function misread(): Promise<number> {
  const { data } = await api.POST("/v1/shoot", { body: {} });
  return data === undefined ? 0 : data.expectedDamageDealt;
}

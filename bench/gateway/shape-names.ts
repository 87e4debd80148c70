// Pure: the six traffic shapes by name and number (issue 10's table plus the hot-key burst).
import { ROUTES, type BenchRoute } from "./routes.ts";

export const SHAPE_NAMES = ["new-keys", "warm-keys", "one-key", "deny-flood", "new-ips", "hot-key"] as const;
export type ShapeName = (typeof SHAPE_NAMES)[number];

export interface ShapeInfo {
  readonly number: number;
  readonly title: string;
  readonly route: BenchRoute;
}

export const SHAPE_INFO: Readonly<Record<ShapeName, ShapeInfo>> = {
  "new-keys": { number: 1, title: "new API keys", route: ROUTES.newKeys },
  "warm-keys": { number: 2, title: "same keys, warm", route: ROUTES.newKeys },
  "one-key": { number: 3, title: "one key", route: ROUTES.oneKey },
  "deny-flood": { number: 4, title: "deny flood", route: ROUTES.denyFlood },
  "new-ips": { number: 5, title: "new IPs, anonymous", route: ROUTES.newIps },
  "hot-key": { number: 6, title: "hot-key burst", route: ROUTES.hotKey },
};

// Pure: how long the objects of a run were billed for duration. Cloudflare bills a Durable Object's
// duration while it handles a request or an event (an alarm), shared by the requests it handles at
// once, and while it sits idle unable to hibernate (a timer set, a fetch pending, a WebSocket
// accepted without the hibernation API); an idle object that could hibernate is not billed, even
// before it does (docs/edge-cost.md, "Object duration"). The gateway's objects set no timers and
// make no outbound calls, so their billed time is the union of the spells in which each handles a
// call or an alarm.

/** A spell in which one object handled a call or an alarm: [start, end], ms on one clock. */
export type Spell = readonly [start: number, end: number];

/** Spells by object (a key naming one object), as one source recorded them. */
export type SpellsByObject = Readonly<Record<string, readonly Spell[]>>;

/** How long at least one of the spells was open, ms: overlapping spells counted once. */
export function unionMs(spells: readonly Spell[]): number {
  const sorted = [...spells].filter(([start, end]) => end >= start).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let openStart = Number.NaN;
  let openEnd = Number.NaN;
  for (const [start, end] of sorted) {
    if (!(start <= openEnd)) {
      if (openEnd > openStart) total += openEnd - openStart;
      openStart = start;
      openEnd = end;
    } else if (end > openEnd) openEnd = end;
  }
  if (openEnd > openStart) total += openEnd - openStart;
  return total;
}

/**
 * Billed object time of a run, ms: per object the union of its spells from every source (each
 * isolate's calls, the owner's alarms), summed over the objects.
 */
export function busyMs(sources: readonly SpellsByObject[]): number {
  const byObject = new Map<string, Spell[]>();
  for (const source of sources)
    for (const [object, spells] of Object.entries(source)) {
      const all = byObject.get(object) ?? [];
      all.push(...spells);
      byObject.set(object, all);
    }
  let total = 0;
  for (const spells of byObject.values()) total += unionMs(spells);
  return total;
}

/**
 * Now, as the real server writes timestamps: ISO 8601 with an explicit UTC offset
 * (`2025-01-01T12:00:00.000+00:00`).
 */
export function timestamp(date: Date = new Date()): string {
  return date.toISOString().replace("Z", "+00:00");
}

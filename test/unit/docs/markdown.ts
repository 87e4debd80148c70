// What the docs tests read of a markdown page.

/** The lines outside fenced code blocks (``` or ~~~), others blanked so line numbers hold. */
export function prose(text: string): string[] {
  let fence: string | null = null;
  return text.split("\n").map((line) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (fence === null) fence = m[1]![0]!.repeat(m[1]!.length);
      else if (m[1]!.startsWith(fence)) fence = null;
      return "";
    }
    return fence === null ? line : "";
  });
}

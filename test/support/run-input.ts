/** An agent-server run input of one user message. */
export const say = (content: string) => ({ messages: [{ role: "user", content }] });

// The `agent` graph's generative UI (langgraph.json's `ui`): one component that renders nothing.
// It is here so the server serves `POST /ui/agent`, whose answer names script URLs built from the
// request's Host (what a client is told to load next).
export default { card: () => null };

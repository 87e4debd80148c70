/**
 * The header through which npm start's local edge (tools/local-edge/) proves a request came
 * through it: its value is the session's LOCAL_EDGE_SECRET. Its own module, without runtime code,
 * so the edge (Node) and the Worker name it from one place.
 */
export const LOCAL_EDGE_HEADER = "x-tollgate-local-edge";

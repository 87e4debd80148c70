import document from "./agent-server.2026.openapi.json" with { type: "json" };

/**
 * The API description the emulator is held to and serves as `/openapi.json`: the agent server's
 * 2026 document (../shared/reference/agent-server.2026.openapi.json, vendored here and held
 * identical by test/unit/docs/reference-documents.test.ts).
 */
export const API_DOCUMENT: object = document;

/**
 * `GET /docs`: the HTML page FastAPI serves there (Swagger UI, from its CDN), reading the
 * description from `openapi.json` beside it. The URL is relative, so the page works wherever the
 * agent server is mounted (`/agent-server/docs` through the gateway, a deployment's own prefix).
 */
export const DOCS_PAGE = `<!DOCTYPE html>
<html>
<head>
<link type="text/css" rel="stylesheet" href="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui.css">
<link rel="shortcut icon" href="https://fastapi.tiangolo.com/img/favicon.png">
<title>LangGraph Agent Server - Swagger UI</title>
</head>
<body>
<div id="swagger-ui">
</div>
<script src="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js"></script>
<script>
const ui = SwaggerUIBundle({
    url: 'openapi.json',
    "dom_id": "#swagger-ui",
    "layout": "BaseLayout",
    "deepLinking": true,
    "showExtensions": true,
    "showCommonExtensions": true,
    presets: [
        SwaggerUIBundle.presets.apis,
        SwaggerUIBundle.SwaggerUIStandalonePreset
    ],
})
</script>
</body>
</html>
`;

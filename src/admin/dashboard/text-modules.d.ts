// Files bundled as text by wrangler.toml's [[rules]] (type "Text").
declare module "*/chart.umd.min.js" {
  const text: string;
  export default text;
}

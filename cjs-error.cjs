// corskin is an ES module: `require('corskin')` (or one of its subpaths) lands here and says how to load it instead.
throw new Error(
  "corskin is an ES module and cannot be require()d: use `const corskin = await import('corskin')`, " +
    "and the same for a subpath (`await import('corskin/three')`, …); " +
    'or `import … from "corskin"` in an ES module.',
);

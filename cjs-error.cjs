// corskin is an ES module: `require('corskin')` lands here and says how to load it instead.
throw new Error(
  "corskin is an ES module and cannot be require()d: use `const corskin = await import('corskin')` " +
    '(or `import … from "corskin"` in an ES module).',
);

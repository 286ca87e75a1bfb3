// corskin is an ES module: require() throws (see cjs-error.cjs). Use `await import('corskin')`.
declare const esmOnly: never;
export = esmOnly;

// class-validator ships the types of its CommonJS build under `types/`; this names them for the one module the
// memoised validator imports by its path (the package exports no executor of its own).
declare module 'class-validator/cjs/validation/ValidationExecutor.js' {
  export { ValidationExecutor } from 'class-validator/types/validation/ValidationExecutor.js';
}

// class-transformer's metadata registry (the one its decorators write to), by its CommonJS path: the package's
// index does not export it.
declare module 'class-transformer/cjs/storage.js' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage.js';
}

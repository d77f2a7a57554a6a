// class-validator ships the types of its CommonJS build under `types/`; this names them for the one module the
// memoised validator imports by its path (the package exports no executor of its own).
declare module 'class-validator/cjs/validation/ValidationExecutor.js' {
  export { ValidationExecutor } from 'class-validator/types/validation/ValidationExecutor.js';
}

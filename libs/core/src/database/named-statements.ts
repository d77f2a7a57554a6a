import pg, { type FieldDef, type PoolClient, type QueryResult } from 'pg';

// Named prepared statements on a pg connection, run as pg runs them but for the work repeated on every run:
// the rows made by one literal per shape of columns, the columns described once per connection.

type TextParser = (text: string) => unknown;

/** The parts of pg's Result that turn a statement's row description into its rows. */
interface ResultInternals {
  fields: FieldDef[];
  command: string | null;
  _types: object | undefined;
  _parsers: TextParser[] | undefined;
  _prebuiltEmptyResultObject: Record<string, null> | null;
  addFields(fields: FieldDef[]): void;
  addCommandComplete(message: unknown): void;
  parseRow(texts: (string | null)[]): Record<string, unknown>;
}

/** A row made at once from a DataRow's column texts and the columns' parsers (`rowBuilder`). */
type RowBuilder = (texts: (string | null)[], parsers: TextParser[]) => Record<string, unknown>;

/** What a named statement's rows are made with: its columns, their parsers, the row to copy, its builder. */
interface RowShape {
  fields: FieldDef[];
  parsers: TextParser[] | undefined;
  empty: Record<string, null> | null;
  build: RowBuilder | undefined;
}

/** Builders by their columns' names (a statement's, whichever connection runs it), and how many are kept. */
const rowBuilders = new Map<string, RowBuilder>();
export const MAX_ROW_BUILDERS = 1_000;

/**
 * A function that makes the rows of these columns as pg's `Result.parseRow` does (each column's text through its
 * parser, NULL as null, a later column of the same name winning in the first one's place), as one object literal.
 * pg copies an empty row and sets each column by name: with the app's hundreds of row shapes, V8 finds those
 * copies and stores at one site for all of them, and takes its slow, generic way there (a tenth of the work
 * of a product page's rows). Each shape's literal here is a site of its own. The names are written as JSON string
 * literals. Undefined (pg's way, then) for a column sent in binary, and for a name an object literal would take
 * as something else than a key (`__proto__`), or past MAX_ROW_BUILDERS shapes.
 */
export function rowBuilder(fields: readonly FieldDef[]): RowBuilder | undefined {
  if (fields.length === 0) return undefined;
  let key = '';
  for (const field of fields) {
    if (field.format === 'binary' || field.name === '__proto__') return undefined;
    key += `${field.name}\u0000`;
  }
  const known = rowBuilders.get(key);
  if (known !== undefined || rowBuilders.size >= MAX_ROW_BUILDERS) return known;
  const columns = fields.map(
    (field, i) => `${JSON.stringify(field.name)}: texts[${i}] === null ? null : parsers[${i}](texts[${i}])`,
  );
  // The source is the columns' names as JSON string literals (valid JavaScript ones) and their indexes.
  const build = new Function('texts', 'parsers', `return { ${columns.join(', ')} };`) as RowBuilder;
  rowBuilders.set(key, build);
  return build;
}

/**
 * Row shapes by statement name, for each set of type parsers: pg gives every connection its own (a
 * TypeOverrides over its pool's `types`, which differ between the API's pools and the others), so each
 * connection learns a statement's shape on its first run of it; a closed connection's entries go with it.
 */
const rowShapes = new WeakMap<object, Map<string, RowShape>>();

function sameColumns(a: FieldDef[], b: FieldDef[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i]!.name !== b[i]!.name || a[i]!.dataTypeID !== b[i]!.dataTypeID || a[i]!.format !== b[i]!.format) {
      return false;
    }
  }
  return true;
}

const PgResult = pg.Result as unknown as new (rowMode?: string, types?: object) => ResultInternals;

/** A statement's row shape as the connection whose type parsers are `types` last saw it described. */
function knownShape(types: object | undefined, statement: string): RowShape | undefined {
  return types === undefined ? undefined : rowShapes.get(types)?.get(statement);
}

/** The shape of a statement that returns no rows (Describe answered NoData): INSERT, UPDATE without RETURNING. */
const NO_ROWS: RowShape = { fields: [], parsers: undefined, empty: null, build: undefined };

/**
 * A named statement's Result. pg describes a prepared statement's columns on every execution, and its
 * Result then looks up a parser per column and builds the empty row each row is copied from, anew (a few
 * percent of a request). When the columns are those of the statement's last execution, this takes both
 * from then; columns that differ (a migration changed the table) are described afresh. The parsers and
 * the empty row are only read, never changed, by the rows made with them. What the connection learns here
 * also lets the next run skip the Describe itself (`NamedStatementQuery`).
 */
export class NamedStatementResult extends PgResult {
  private build: RowBuilder | undefined = undefined;
  private described = false;

  constructor(private readonly statement: string) {
    super(undefined, undefined);
  }

  override addFields(fields: FieldDef[]): void {
    this.described = true;
    // The connection's type parsers, set by pg when the query was handed to it.
    const types = this._types;
    const shape = knownShape(types, this.statement);
    if (shape !== undefined && sameColumns(shape.fields, fields)) {
      this.fields = fields;
      this._parsers = shape.parsers;
      this._prebuiltEmptyResultObject = shape.empty;
      this.build = shape.build;
      return;
    }
    super.addFields(fields);
    this.build = rowBuilder(fields);
    const empty = this._prebuiltEmptyResultObject;
    this.remember({ fields, parsers: this._parsers, empty, build: this.build });
  }

  /** The end of the statement's run: one that was described without a row description returns no rows. */
  override addCommandComplete(message: unknown): void {
    if (!this.described && this.command === null && knownShape(this._types, this.statement) === undefined) {
      this.remember(NO_ROWS);
    }
    super.addCommandComplete(message);
  }

  /**
   * A row of the statement: made by its columns' builder (`rowBuilder`), or as pg makes it. A row whose width
   * is not its columns' (taken from an earlier run that was described otherwise) is refused as PostgreSQL refuses
   * a statement whose columns changed, so `queryRows` names the text anew.
   */
  override parseRow(texts: (string | null)[]): Record<string, unknown> {
    if (texts.length !== this.fields.length) {
      throw Object.assign(new Error('cached plan must not change result type (a row of another width)'), {
        code: '0A000',
      });
    }
    const build = this.build;
    return build !== undefined ? build(texts, this._parsers!) : super.parseRow(texts);
  }

  private remember(shape: RowShape): void {
    const types = this._types;
    if (types === undefined) return;
    let shapes = rowShapes.get(types);
    if (shapes === undefined) rowShapes.set(types, (shapes = new Map<string, RowShape>()));
    shapes.set(this.statement, shape);
  }
}

/** The parts of pg's Connection (one per pg client) that a run of a prepared statement writes with. */
interface WireConnection {
  /** The statements this connection has prepared (PostgreSQL answered ParseComplete), by name: their texts. */
  parsedStatements: Record<string, string | undefined>;
  /** The statements whose Parse is on its way, by name. */
  submittedNamedStatements: Record<string, string | undefined>;
  parse(config: { text: string; name: string; types: unknown }): void;
  bind(config: {
    portal: string;
    statement: string;
    values: unknown[];
    binary: boolean | undefined;
    valueMapper: unknown;
  }): void;
  describe(config: { type: 'P'; name: string }): void;
  sync(): void;
}

/** The parts of pg's Query that run a named statement. */
interface QueryInternals {
  name: string;
  text: string;
  values: unknown[];
  types: unknown;
  portal: string;
  binary: boolean | undefined;
  rows: number | undefined;
  _result: NamedStatementResult;
  _results: unknown;
  prepare(connection: WireConnection): void;
  hasBeenParsed(connection: WireConnection): boolean;
  handleRowDescription(message: { fields: FieldDef[] }): void;
  handleError(error: unknown, connection: WireConnection): void;
  _getRows(connection: WireConnection, rows: number | undefined): void;
}

const PgQuery = pg.Query as unknown as new (
  text: string,
  values: unknown[],
  callback: (error: Error | undefined, result: unknown) => void,
) => QueryInternals;

/** How pg turns a parameter into its text (Dates, arrays, JSON, Buffers), as its own prepare binds. */
const prepareValue = (pg as unknown as { utils?: { prepareValue?: unknown } }).utils?.prepareValue;
/** Without it (another pg), every run is left to pg's own prepare. */
const bindsLikePg = typeof prepareValue === 'function';

/** The `types` of the pools whose connections describe a prepared statement once (`describedOnce`). */
const describingOnce = new WeakSet<object>();

/**
 * `types` for a pool whose connections are PostgreSQL's own sessions (directly, or through a pooler in session
 * mode): a named statement's columns are described on its first run on a connection, not on every run
 * (`NamedStatementQuery`). Not for a pool behind a pooler in transaction mode: it may prepare the statement
 * afresh on another server connection, after a migration with other columns, and no refusal would say so.
 */
export function describedOnce<T extends { getTypeParser: unknown }>(types: T): T {
  const marked = { ...types };
  describingOnce.add(marked);
  return marked;
}

/** Whether a connection's type parsers (pg's TypeOverrides over its pool's `types`) are a `describedOnce` pool's. */
function describesOnce(overrides: object | undefined): boolean {
  const pool = (overrides as { _types?: object } | undefined)?._types;
  return pool !== undefined && describingOnce.has(pool);
}

/**
 * A run of a named statement, written as pg writes it (Parse the first time on a connection, Bind, Describe,
 * Execute, Sync) with two differences:
 *
 * - **Describe once.** pg asks for the statement's columns on every run and parses the answer afresh (a few
 *   percent of a request's work). On a `describedOnce` pool's connection that has prepared the statement and
 *   seen its columns (or its NoData), a run sends Bind, Execute and Sync only and takes the columns from then.
 *   PostgreSQL refuses to run a prepared statement whose result columns changed since it was prepared (0A000,
 *   "cached plan must not change result type"; `queryRows` then names the text anew), so a run's rows always
 *   have the columns it was described with; a row of another width is refused the same way (`parseRow`).
 * - **A value pg cannot write** (its serialiser throws) fails that run only: a Sync ends it. pg also sends
 *   Close for the statement, which PostgreSQL then forgets while the connection still counts it as prepared:
 *   every later run of it on that connection would fail.
 *
 * A statement in binary, and any run when pg's value writer cannot be found, stay pg's.
 */
class NamedStatementQuery extends PgQuery {
  override prepare(connection: WireConnection): void {
    if (!bindsLikePg || this.binary === true) {
      super.prepare(connection);
      return;
    }
    const shape =
      connection.parsedStatements[this.name] === this.text && describesOnce(this._result._types)
        ? knownShape(this._result._types, this.name)
        : undefined;
    if (!this.hasBeenParsed(connection)) {
      connection.parse({ text: this.text, name: this.name, types: this.types });
      connection.submittedNamedStatements[this.name] = this.text;
    }
    try {
      connection.bind({
        portal: this.portal,
        statement: this.name,
        values: this.values,
        binary: this.binary,
        valueMapper: prepareValue,
      });
    } catch (error) {
      // Nothing of the Bind was sent; the statement (its Parse, if sent now) stays. The Sync ends the run.
      connection.sync();
      this.handleError(error, connection);
      return;
    }
    if (shape === undefined) connection.describe({ type: 'P', name: this.portal || '' });
    else if (shape.fields.length > 0) this.handleRowDescription({ fields: shape.fields });
    this._getRows(connection, this.rows);
  }
}

/**
 * A named statement on `connection`. The Query is made from the text and values and named afterwards:
 * given a config object, pg copies it property by property first (`cloneQueryConfig`).
 */
export function namedQuery(
  connection: PoolClient,
  name: string,
  text: string,
  values: unknown[],
): Promise<QueryResult> {
  return new Promise((resolve, reject) => {
    const query = new NamedStatementQuery(text, values, (error: Error | undefined, result: unknown) =>
      error ? reject(error) : resolve(result as QueryResult),
    );
    query.name = name;
    query._result = query._results = new NamedStatementResult(name);
    void connection.query(query as unknown as pg.Submittable);
  });
}

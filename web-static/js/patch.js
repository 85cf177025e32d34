// @ts-check
/**
 * RFC 6902 JSON Patch and RFC 6901 JSON Pointer, just enough for the
 * server's diffs (add, remove, replace, move, copy, test). Patches are applied
 * to a deep copy, so a failing patch never leaves a half-changed document.
 */

/** @typedef {null | boolean | number | string | JSONValue[] | {[key: string]: JSONValue}} JSONValue */
/** @typedef {{op: string, path: string, value?: JSONValue, from?: string}} PatchOp */

export class PatchError extends Error {}

/**
 * Splits a JSON Pointer into its unescaped reference tokens.
 * @param {string} pointer
 * @returns {string[]}
 */
export function parsePointer(pointer) {
  if (pointer === "") return [];
  if (pointer[0] !== "/") throw new PatchError(`bad pointer ${JSON.stringify(pointer)}`);
  return pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** @param {string} token */
export function escapeToken(token) {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** @param {JSONValue} value @returns {JSONValue} */
export function clone(value) {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

/**
 * The value a pointer names, or undefined.
 * @param {JSONValue} doc
 * @param {string} pointer
 * @returns {JSONValue | undefined}
 */
export function get(doc, pointer) {
  /** @type {any} */
  let node = doc;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (node !== null && typeof node === "object") {
      node = Object.prototype.hasOwnProperty.call(node, token) ? node[token] : undefined;
    } else {
      return undefined;
    }
    if (node === undefined) return undefined;
  }
  return node;
}

/**
 * @param {any} container
 * @param {string} token
 * @param {boolean} forAdd "-" and an index equal to the length are only valid for add
 */
function arrayIndex(container, token, forAdd) {
  if (token === "-" && forAdd) return container.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`bad array index ${token}`);
  const index = Number(token);
  if (index > container.length || (!forAdd && index === container.length)) {
    throw new PatchError(`array index ${token} out of range`);
  }
  return index;
}

/**
 * @param {any} doc
 * @param {string} pointer
 * @returns {{parent: any, token: string}}
 */
function locate(doc, pointer) {
  const tokens = parsePointer(pointer);
  const token = /** @type {string} */ (tokens.pop());
  let parent = doc;
  for (const t of tokens) {
    if (Array.isArray(parent)) parent = parent[arrayIndex(parent, t, false)];
    else if (parent !== null && typeof parent === "object" && Object.prototype.hasOwnProperty.call(parent, t)) parent = parent[t];
    else throw new PatchError(`path ${pointer} does not exist`);
    if (parent === null || typeof parent !== "object") throw new PatchError(`path ${pointer} does not exist`);
  }
  if (parent === null || typeof parent !== "object") throw new PatchError(`path ${pointer} does not exist`);
  return { parent, token };
}

/** @param {any} doc @param {string} path @param {JSONValue} value @returns {any} */
function add(doc, path, value) {
  if (path === "") return value;
  const { parent, token } = locate(doc, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, token, true), 0, value);
  else parent[token] = value;
  return doc;
}

/** @param {any} doc @param {string} path @returns {{doc: any, removed: JSONValue}} */
function remove(doc, path) {
  if (path === "") throw new PatchError("cannot remove the whole document");
  const { parent, token } = locate(doc, path);
  if (Array.isArray(parent)) {
    const [removed] = parent.splice(arrayIndex(parent, token, false), 1);
    return { doc, removed };
  }
  if (!Object.prototype.hasOwnProperty.call(parent, token)) throw new PatchError(`path ${path} does not exist`);
  const removed = parent[token];
  delete parent[token];
  return { doc, removed };
}

/** @param {JSONValue} a @param {JSONValue} b @returns {boolean} */
export function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = /** @type {JSONValue[]} */ (b);
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ao = /** @type {{[k: string]: JSONValue}} */ (a), bo = /** @type {{[k: string]: JSONValue}} */ (b);
  const ak = Object.keys(ao), bk = Object.keys(bo);
  return ak.length === bk.length && ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && deepEqual(ao[k], bo[k]));
}

/**
 * Applies a patch and returns the new document; the input is left untouched.
 * @param {JSONValue} document
 * @param {PatchOp[]} ops
 * @returns {JSONValue}
 */
export function applyPatch(document, ops) {
  if (!Array.isArray(ops)) throw new PatchError("a patch is an array of operations");
  /** @type {any} */
  let doc = clone(document);
  for (const op of ops) {
    if (op === null || typeof op !== "object" || typeof op.path !== "string") throw new PatchError("bad operation");
    switch (op.op) {
      case "add":
        if (!("value" in op)) throw new PatchError("add needs a value");
        doc = add(doc, op.path, clone(/** @type {JSONValue} */ (op.value)));
        break;
      case "remove":
        doc = remove(doc, op.path).doc;
        break;
      case "replace":
        if (!("value" in op)) throw new PatchError("replace needs a value");
        if (op.path === "") { doc = clone(/** @type {JSONValue} */ (op.value)); break; }
        doc = remove(doc, op.path).doc;
        doc = add(doc, op.path, clone(/** @type {JSONValue} */ (op.value)));
        break;
      case "move": {
        if (typeof op.from !== "string") throw new PatchError("move needs from");
        if (op.path === op.from) break;
        if (op.path.startsWith(op.from + "/")) throw new PatchError("cannot move a value into itself");
        const taken = remove(doc, op.from);
        doc = add(taken.doc, op.path, taken.removed);
        break;
      }
      case "copy": {
        if (typeof op.from !== "string") throw new PatchError("copy needs from");
        const value = get(doc, op.from);
        if (value === undefined) throw new PatchError(`path ${op.from} does not exist`);
        doc = add(doc, op.path, clone(value));
        break;
      }
      case "test": {
        const value = get(doc, op.path);
        if (value === undefined || !deepEqual(value, /** @type {JSONValue} */ (op.value))) throw new PatchError(`test failed at ${op.path}`);
        break;
      }
      default:
        throw new PatchError(`unknown op ${op.op}`);
    }
  }
  return doc;
}

import type { Node, Tree } from 'web-tree-sitter';
import { Yielder } from '../util/yield.js';
import type { LanguageId } from './languages.js';
import { DECISION_NODES, GO_TYPE_KINDS, LOGICAL_OPERATORS, NODE_KINDS, kindOf } from './node-kinds.js';

export interface ClassInfo {
  name: string;
  kind: string;
  start_line: number;
  end_line: number;
  methods: number;
  fields: number;
}

export interface FunctionInfo {
  name: string;
  /** "method" inside a class-like node, else "function". */
  kind: 'function' | 'method';
  /** The enclosing class-like node's name ('' for top-level functions). */
  class: string;
  start_line: number;
  end_line: number;
  lines: number;
  params: number;
  /** McCabe: 1 + branch points (if, loops, cases, catch, ternary, &&, ||) in the body, nested functions excluded. */
  complexity: number;
}

export interface FieldInfo {
  name: string;
  class: string;
  line: number;
}

export interface ImportInfo {
  line: number;
  text: string;
}

/** Where a class or function lies in the text (offsets of its node): finer than its lines. */
export interface SourceSpan {
  start: number;
  end: number;
}

export interface CodeStructure {
  classes: ClassInfo[];
  functions: FunctionInfo[];
  fields: FieldInfo[];
  imports: ImportInfo[];
  /**
   * The offsets of each class, function and field, kept beside the rows (which tools send as they are): two
   * declarations on one line (`function a() {} function b() {}`, a minified file) nest or not by
   * offsets, not by lines. Absent for a structure made by hand: lines are used then.
   */
  spans?: WeakMap<ClassInfo | FunctionInfo | FieldInfo, SourceSpan>;
}

const IDENTIFIER_TYPES = new Set([
  'identifier',
  'type_identifier',
  'field_identifier',
  'property_identifier',
  'private_property_identifier',
  'constant',
  'name',
  'variable_name',
  'qualified_identifier',
  'scoped_identifier',
  'destructor_name',
  'operator_name',
  'simple_identifier',
]);

/** The declared name of a node: its name field, else the identifier inside its declarator. */
export function declaredName(node: Node): string {
  // A conversion operator (`operator bool() const`) is named by its type.
  if (node.type === 'operator_cast') {
    const head = node.text.slice(0, node.text.indexOf('(') >>> 0);
    return head
      .replace(/\s+/g, ' ')
      .replace(/\s*([*&])/g, '$1')
      .trim();
  }
  const direct = node.childForFieldName('name') ?? node.childForFieldName('property');
  if (direct) return direct.text;
  const declarator = node.childForFieldName('declarator');
  if (declarator) {
    if (IDENTIFIER_TYPES.has(declarator.type)) return declarator.text;
    return declaredName(declarator);
  }
  if (node.type === 'impl_item') {
    const type = node.childForFieldName('type');
    const trait = node.childForFieldName('trait');
    return type ? (trait ? `${trait.text} for ${type.text}` : type.text) : '';
  }
  for (const child of node.namedChildren) {
    if (child && IDENTIFIER_TYPES.has(child.type)) return child.text;
  }
  for (const child of node.namedChildren) {
    if (child && /declarator|variable_declaration|property_element/.test(child.type)) {
      const inner = declaredName(child);
      if (inner) return inner;
    }
  }
  return '';
}

/**
 * Where the walk found a node: its parent and grandparent. Passed down, not asked of the node: web
 * tree-sitter finds `node.parent` by walking down from the root, which made a file of deeply nested
 * functions quadratic (8,000 levels: 12 s for an outline).
 */
interface Parents {
  parent: Node | null;
  grandparent: Node | null;
}

/** Names an anonymous function by what it is assigned to (const f = () => …, obj = { f() {} }). */
function functionName(node: Node, { parent }: Parents): string {
  const own = declaredName(node);
  if (
    own &&
    node.type !== 'arrow_function' &&
    node.type !== 'function_expression' &&
    node.type !== 'function'
  )
    return own;
  if (node.type === 'arrow_function' || node.type === 'function_expression' || node.type === 'function') {
    if (!parent) return '';
    if (
      parent.type === 'variable_declarator' ||
      parent.type === 'public_field_definition' ||
      parent.type === 'field_definition'
    ) {
      return declaredName(parent);
    }
    if (parent.type === 'pair') return parent.childForFieldName('key')?.text ?? '';
    if (parent.type === 'assignment_expression') return parent.childForFieldName('left')?.text ?? '';
    return own;
  }
  return own;
}

/** A class-like node that declares a type (not a mere reference such as C's `struct x *p`). */
function isClassNode(node: Node, classes: ReadonlySet<string>): boolean {
  if (!classes.has(node.type)) return false;
  if (
    node.type === 'struct_specifier' ||
    node.type === 'class_specifier' ||
    node.type === 'union_specifier' ||
    node.type === 'enum_specifier'
  ) {
    return node.childForFieldName('body') !== null; // a definition, not a mere reference such as `struct x *p`
  }
  return true;
}

/**
 * A C or C++ prototype: a declaration (`int f(void);`, a member `void g() const;`) whose declarator is
 * a function's, through pointers and references (`char *strdup(const char *);`), but not a function
 * pointer variable (`int (*fp)(int);`, whose function declarator wraps a parenthesised one).
 */
function isPrototype(node: Node, language: LanguageId, { parent }: Parents): boolean {
  if (language !== 'c' && language !== 'cpp') return false;
  if (node.type !== 'declaration' && node.type !== 'field_declaration') return false;
  // `friend bool operator==(…);` names a function defined elsewhere, not a member (ctags skips it too).
  if (parent?.type === 'friend_declaration') return false;
  let declarator = node.childForFieldName('declarator');
  while (declarator && POINTER_DECLARATORS.has(declarator.type))
    declarator = declarator.childForFieldName('declarator') ?? declarator.namedChildren.at(-1) ?? null;
  return (
    declarator?.type === 'function_declarator' &&
    declarator.childForFieldName('declarator')?.type !== 'parenthesized_declarator'
  );
}

/**
 * A method signature of an anonymous object type (`type T = { valueOf(): V }`, `var x: { abort(): void }`):
 * part of a type, not a declared method. Those of interfaces and (abstract, declared) classes count.
 */
function isTypeLiteralMember(node: Node, { parent }: Parents): boolean {
  if (node.type !== 'method_signature' && node.type !== 'abstract_method_signature') return false;
  const body = parent?.type;
  return body !== 'interface_body' && body !== 'class_body';
}

/** A method of a Go interface declared inside a function: local, as its type is (not listed). */
function isLocalInterfaceMethod(node: Node, inFunction: boolean): boolean {
  return inFunction && (node.type === 'method_elem' || node.type === 'method_spec');
}

const POINTER_DECLARATORS = new Set(['pointer_declarator', 'reference_declarator', 'attributed_declarator']);

function isFieldNode(
  node: Node,
  fields: ReadonlySet<string>,
  language: LanguageId,
  parents: Parents,
): boolean {
  if (language === 'python') {
    // Class attributes: `x = 1` / `x: int = 1` directly in a class body.
    return (
      node.type === 'expression_statement' &&
      parents.parent?.type === 'block' &&
      parents.grandparent?.type === 'class_definition' &&
      node.firstNamedChild?.type === 'assignment'
    );
  }
  if (!fields.has(node.type)) return false;
  // C++ member function declarations are field_declaration nodes too: they are listed as methods.
  return !isPrototype(node, language, parents);
}

function isImportNode(node: Node, imports: ReadonlySet<string>, language: LanguageId): boolean {
  if (imports.has(node.type)) return true;
  if (language === 'ruby' && node.type === 'call') {
    const method = node.childForFieldName('method')?.text;
    return method === 'require' || method === 'require_relative' || method === 'load';
  }
  if (language === 'bash' && node.type === 'command') {
    const name = node.childForFieldName('name')?.text;
    return name === 'source' || name === '.';
  }
  if (language === 'php')
    return (
      node.type === 'require_once_expression' ||
      node.type === 'require_expression' ||
      node.type === 'include_expression' ||
      node.type === 'include_once_expression'
    );
  return false;
}

/**
 * A function's name on one line. In C and C++ a name with words before it is tree-sitter's misreading
 * of a line it could not parse: a return type or specifier taken in (`iter_difference_t<I> operator-`,
 * `ValueType value`: the last word, or the operator), or a declaration that is no function
 * (`namespace __detail`, `struct X<T>`: no name at all).
 */
function cleanName(name: string, language: LanguageId): string {
  const flat = name
    .replace(/\s+/g, ' ')
    .replace(/\s*::\s*/g, '::')
    .trim();
  if ((language !== 'c' && language !== 'cpp') || flat.startsWith('operator')) return flat;
  // Spaces between words, not inside template arguments (`basic_string<C, T, A>::reserve`).
  const spaces: number[] = [];
  for (let i = 0, depth = 0; i < flat.length; i++) {
    const char = flat[i];
    if (char === '<') depth++;
    else if (char === '>') depth = Math.max(0, depth - 1);
    else if (char === ' ' && depth === 0) spaces.push(i);
  }
  if (spaces.length === 0) return flat;
  if (DECLARATION_WORDS.has(flat.slice(0, spaces[0]))) return '';
  const operator = flat.search(/\boperator\b/);
  if (operator > 0) return flat.slice(operator);
  return flat.slice(spaces[spaces.length - 1]! + 1);
}

const DECLARATION_WORDS = new Set([
  'namespace',
  'struct',
  'class',
  'union',
  'enum',
  'typedef',
  'using',
  'template',
]);

/** Words tree-sitter may take for a function's name on a line it could not read (C and C++). */
const C_KEYWORDS = new Set([
  'if',
  'else',
  'for',
  'while',
  'do',
  'switch',
  'case',
  'return',
  'sizeof',
  'alignof',
  'decltype',
  'noexcept',
  'static_assert',
  'typeof',
  'catch',
  'throw',
  'new',
  'delete',
]);

/**
 * The class and member of a qualified C++ name (`basic_string<C, T, A>::assign` → basic_string,
 * assign), when the qualifier is a class: it has template arguments, names a class of the file, or
 * starts with a capital and is no namespace of the file. Undefined otherwise (`std::swap`).
 */
function memberOf(
  name: string,
  namespaces: ReadonlySet<string>,
  classes: ReadonlyMap<string, unknown>,
): { owner: string; member: string } | undefined {
  // The last `::` outside template arguments.
  let depth = 0;
  let cut = -1;
  for (let i = 0; i < name.length; i++) {
    const char = name[i];
    if (char === '<') depth++;
    else if (char === '>') depth--;
    else if (depth === 0 && char === ':' && name[i + 1] === ':') cut = i++;
  }
  if (cut <= 0) return undefined;
  const qualifier = name.slice(0, cut);
  const member = name.slice(cut + 2);
  const at = qualifier.lastIndexOf('::');
  const last = at < 0 ? qualifier : qualifier.slice(at + 2);
  const plain = last.replace(/<.*$/s, '');
  if (!member || !plain || namespaces.has(plain)) return undefined;
  if (qualifier.includes('<') || classes.has(plain) || /^[A-Z]/.test(plain)) return { owner: plain, member };
  return undefined;
}

/**
 * A method JavaScript defines on a constructor's prototype (`ZipFile.prototype.readEntry = function`):
 * named by the member, under the class, as a class body's methods are.
 */
function prototypeMember(name: string): { owner: string; member: string } | undefined {
  const match = /^([\w$]+)\.prototype\.([\w$]+)$/.exec(name);
  return match ? { owner: match[1]!, member: match[2]! } : undefined;
}

/** Cyclomatic complexity of a function body, not descending into nested functions. */
export function complexityOf(fn: Node, functionTypes: ReadonlySet<string>): number {
  let complexity = 1;
  const stack: Node[] = [...fn.children.filter((c): c is Node => c !== null)];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (functionTypes.has(node.type)) continue;
    if (node.isNamed ? DECISION_NODES.has(node.type) : LOGICAL_OPERATORS.has(node.type)) complexity++;
    for (const child of node.children) if (child) stack.push(child);
  }
  return complexity;
}

/**
 * A parameter a caller passes: not a comment, not Python's `/` and `*` markers, not TypeScript's
 * `this: T` (a type for `this`, no argument).
 */
function isParameter(node: Node): boolean {
  if (
    node.type.includes('comment') ||
    node.type === 'positional_separator' ||
    node.type === 'keyword_separator'
  )
    return false;
  const pattern = node.childForFieldName('pattern');
  return !(pattern?.type === 'this');
}

function paramCount(node: Node): number {
  const params =
    node.childForFieldName('parameters') ??
    node.childForFieldName('declarator')?.childForFieldName('parameters');
  if (params) return params.namedChildren.filter((c) => c !== null && isParameter(c)).length;
  const single = node.childForFieldName('parameter');
  return single ? 1 : 0;
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Classes, functions/methods (with complexity), fields and imports of a parsed file. */
export async function analyzeStructure(
  tree: Tree,
  language: LanguageId,
  yielder: Yielder = new Yielder(),
): Promise<CodeStructure> {
  const kinds = NODE_KINDS[language];
  const classTypes = new Set(kinds.classes);
  const functionTypes = new Set(kinds.functions);
  const fieldTypes = new Set(kinds.fields);
  const importTypes = new Set(kinds.imports);
  const spans = new WeakMap<ClassInfo | FunctionInfo | FieldInfo, SourceSpan>();
  const result: CodeStructure = { classes: [], functions: [], fields: [], imports: [], spans };
  const classInfo = new Map<number, ClassInfo>();

  // First class of each name, for Go methods declared outside their type (was a linear find per method).
  const classByName = new Map<string, ClassInfo>();
  type Owner = { name: string; id: number } | undefined;
  // Explicit stack, not recursion: a deeply nested file (thousands of nested functions, arrays or a
  // long `a+b+…` chain) must not exhaust the call stack. Children are pushed in reverse: same pre-order.
  const stack: { node: Node; owner: Owner; inFunction: boolean; parents: Parents }[] = [
    {
      node: tree.rootNode,
      owner: undefined,
      inFunction: false,
      parents: { parent: null, grandparent: null },
    },
  ];
  // Namespaces declared so far (C++): `ns::f() {}` is a function of a namespace, not a member.
  const namespaces = new Set<string>();
  const visit = (node: Node, owner: Owner, inFunction: boolean, parents: Parents) => {
    let nextOwner = owner;
    let nextInFunction = inFunction;
    if (node.type === 'namespace_definition') {
      const name = node.childForFieldName('name')?.text;
      if (name) for (const part of name.split('::')) namespaces.add(part.trim());
    }
    // A Go type declared inside a function is local to it (ctags lists none either).
    if (isClassNode(node, classTypes) && !(language === 'go' && inFunction)) {
      const info: ClassInfo = {
        // A specialization's arguments may span lines (`__rebind<_Tp,\n  __void_t<…>>`): one line.
        name: declaredName(node).replace(/\s+/g, ' ') || '<anonymous>',
        kind:
          node.type === 'type_spec'
            ? (GO_TYPE_KINDS[node.childForFieldName('type')?.type ?? ''] ?? 'type')
            : kindOf(node.type),
        start_line: node.startPosition.row + 1,
        end_line: node.endPosition.row + 1,
        methods: 0,
        fields: 0,
      };
      result.classes.push(info);
      spans.set(info, { start: node.startIndex, end: node.endIndex });
      classInfo.set(node.id, info);
      if (!classByName.has(info.name)) classByName.set(info.name, info);
      nextOwner = { name: info.name, id: node.id };
      nextInFunction = false;
    } else if (
      (functionTypes.has(node.type) &&
        !isTypeLiteralMember(node, parents) &&
        !isLocalInterfaceMethod(node, inFunction)) ||
      (!inFunction && isPrototype(node, language, parents))
    ) {
      const own = cleanName(functionName(node, parents), language);
      // C++ defines members outside their class (`void Widget::draw() {`): named by the member, under
      // the class, as Go's receivers are (a namespace qualifier stays in the name).
      const scoped =
        language === 'cpp' && !inFunction && !own.startsWith('operator')
          ? memberOf(own, namespaces, classByName)
          : !inFunction
            ? prototypeMember(own)
            : undefined;
      const name = scoped?.member ?? own;
      // Anonymous callbacks are not worth listing; named ones (const f = () => …) are. A keyword is
      // tree-sitter's misreading of a macro-heavy line (`decltype`, `if`), never a function.
      if (name && !((language === 'c' || language === 'cpp') && C_KEYWORDS.has(name))) {
        // Go declares methods outside the type: the receiver names the owner.
        const receiver = node.type === 'method_declaration' ? node.childForFieldName('receiver') : null;
        const receiverType = receiver?.descendantsOfType('type_identifier')[0]?.text ?? scoped?.owner;
        const method = (owner !== undefined && !inFunction) || receiverType !== undefined;
        const ownerName = receiverType ?? owner?.name ?? '';
        const start = node.startPosition.row + 1;
        const end = node.endPosition.row + 1;
        const info: FunctionInfo = {
          name,
          kind: method ? 'method' : 'function',
          class: method ? ownerName : '',
          start_line: start,
          end_line: end,
          lines: end - start + 1,
          params: paramCount(node),
          complexity: complexityOf(node, functionTypes),
        };
        result.functions.push(info);
        spans.set(info, { start: node.startIndex, end: node.endIndex });
        if (receiverType !== undefined) {
          const info = classByName.get(receiverType);
          if (info) info.methods++;
        } else if (method && owner) {
          const info = classInfo.get(owner.id);
          if (info) info.methods++;
        }
      }
      nextInFunction = true;
    } else if (!inFunction && owner && isFieldNode(node, fieldTypes, language, parents)) {
      // A type defined in a member's place (C, C++: `union json_value { … };` in a class, or
      // `struct { int a; } s;`) is a nested class, with members of its own.
      const type = node.childForFieldName('type');
      const nested = type && isClassNode(type, classTypes) ? type : undefined;
      if (nested)
        stack.push({
          node: nested,
          owner,
          inFunction,
          parents: { parent: node, grandparent: parents.parent },
        });
      if (nested && !node.childForFieldName('declarator')) return; // a type only: no field
      const target = language === 'python' ? node.firstNamedChild?.childForFieldName('left') : node;
      const field: FieldInfo = {
        name: target ? declaredName(target) || target.text : '',
        class: owner.name,
        line: node.startPosition.row + 1,
      };
      result.fields.push(field);
      spans.set(field, { start: node.startIndex, end: node.endIndex });
      const info = classInfo.get(owner.id);
      if (info) info.fields++;
      return; // a field's initializer holds no members of the class
    } else if (isImportNode(node, importTypes, language)) {
      result.imports.push({ line: node.startPosition.row + 1, text: oneLine(node.text) });
      return;
    }
    const children = node.namedChildren;
    const childParents = { parent: node, grandparent: parents.parent };
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child)
        stack.push({ node: child, owner: nextOwner, inFunction: nextInFunction, parents: childParents });
    }
  };
  // A big file has hundreds of thousands of nodes: the walk gives the event loop a turn now and then.
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    visit(frame.node, frame.owner, frame.inFunction, frame.parents);
    if (yielder.due()) await yielder.pause();
  }
  return result;
}

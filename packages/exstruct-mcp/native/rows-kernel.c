// The rows of a worksheet's sheetData read into compact JSON bytes and columns, in freestanding C built
// to WebAssembly (build: scripts/build-rows-kernel.mjs; wrapper: src/extract/wasm-rows.ts). It is an
// accelerator for src/extract/fast-rows.ts (FastRowParser), which is the reference: for every input it
// either writes exactly what FastRowParser writes or refuses, and a refusal is resolved by the JS code.
//
// Streaming: JS copies each inflated piece (at most PIECE_MAX bytes) to in_ptr() and calls feed(n); a row
// cut by the end of a piece is kept (moved to the start of the input buffer) and joined to the next
// piece. finish() reads the rest and closes the JSON. JSON goes to an output buffer handed to
// js_drain(ptr, len) whenever it fills (and at the end). Columns stay in memory for JS to copy out.
//
// Per sheet: reset() (or reuse() for another sheet of the same workbook), alloc() + configure(), begin().
//
// Refusals: feed/finish return < 0; err_code()/err_pos() say why and where (stream offset).
//   -1 NOT_FAST: markup FastRowParser refuses (throws NotFast) -> the caller's NotFast path.
//   -2 UNSUPPORTED: valid markup not read here (rich text, `_xHHHH_` escapes, carriage returns, text
//      that is not UTF-8, an error or date cell blank only in Unicode's white space, ...) -> the caller
//      reads the sheet again with FastRowParser.
//   -3 NO_MEMORY -> the same.

typedef unsigned char u8;
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;
typedef unsigned long usize;

#define EXPORT(name) __attribute__((export_name(#name)))
#define IMPORT(name) __attribute__((import_module("env"), import_name(#name)))

// JS callbacks (rare paths). js_parse: +text (JS Number conversion); js_format: String(v) as bytes at
// out (<= 32 bytes), returns length; js_drain: output bytes; js_row_height: info.rowHeights.set.
IMPORT(js_parse) double js_parse(const u8 *p, i32 len);
IMPORT(js_format) i32 js_format(double v, u8 *out);
IMPORT(js_drain) void js_drain(const u8 *p, i32 len);
IMPORT(js_row_height) void js_row_height(i32 row, double h);

#define NOT_FAST -1
#define UNSUPPORTED -2
#define NO_MEMORY -3

#define K_NUMBER 0
#define K_SHARED 1
#define K_TEXT 2
#define K_TRUE 3
#define K_FALSE 4
#define K_DATE 5
#define K_TIME 6
#define DECIMALS 16

#define MAX_COLUMN_INDEX 16383
#define MAX_ROW 1048576
#define MAX_DATE_SERIAL 2958465.0
#define MAX_CARRY (8 << 20)
#define PIECE_MAX (1 << 20)
#define PAD 64

// ---------------------------------------------------------------- memory
extern u8 __heap_base;
static u8 *heap_start, *heap_top;
/** The most memory may grow to (bytes; 0: the module's maximum). */
static usize heap_max;
static u8 *heap_alloc(usize n) {
  if (!heap_start) heap_start = heap_top = (u8 *)(((usize)&__heap_base + 63) & ~(usize)63);
  usize at = ((usize)heap_top + 63) & ~(usize)63;
  usize need = at + n;
  if (need < at) return 0;
  usize have = __builtin_wasm_memory_size(0) * 65536ul;
  if (need > have) {
    if (heap_max && need > heap_max) return 0;
    usize pages = (need - have + 65535) / 65536;
    if (__builtin_wasm_memory_grow(0, pages) == (usize)-1) return 0;
  }
  heap_top = (u8 *)need;
  return (u8 *)at;
}
void *memcpy(void *d, const void *s, usize n) {
  __builtin_memcpy(d, s, n);
  return d;
}
void *memmove(void *d, const void *s, usize n) {
  __builtin_memmove(d, s, n);
  return d;
}
void *memset(void *d, int c, usize n) {
  __builtin_memset(d, c, n);
  return d;
}
#define COPY(d, s, n) __builtin_memcpy((d), (s), (n))

// ---------------------------------------------------------------- state
#define MAX_OTHER 256
static struct {
  // configuration
  u8 *dateKind, *bordered;
  i32 nStyles, anyBorders;
  i32 sharedCount;
  u32 *sharedOff; // sharedCount + 1 offsets into sharedBlob
  u8 *sharedBlob;
  i32 alpha, date1904, noPrefix;
  u8 names[6][32]; // row c v f is t, with the prefix
  i32 nameLen[6];
  u8 rowTag[34];
  i32 rowTagLen;
  u8 prefixes[1024]; // scope's prefixes: [len][bytes]...
  i32 prefixesLen;
  u8 knownPrefix[64];
  i32 knownPrefixLen;
  // input
  u8 *in;
  i32 carry;
  i64 base; // stream offset of in[0]
  // output
  u8 *out;
  i32 outCap, outPos;
  i64 outFlushed;
  // sheet state
  i32 rowNumber, nextCol, jsonRow, lastRow, ordered;
  // columns
  i32 *rowNumbers, *rowStart, *cols, *borders;
  u8 *kinds;
  double *nums;
  i32 rowCap, rowCount, cellCap, cellCount, borderCap, borderCount;
  // texts (t="str" values): their UTF-8 bytes one after the other, and textCount + 1 offsets
  u8 *texts;
  i32 *textOff;
  i32 textCap, textLen, textOffCap, textCount;
  // attribute names of the tag being read (duplicate check)
  const u8 *otherStart[MAX_OTHER];
  i32 otherLen[MAX_OTHER];
  i32 otherCount;
  // column keys
  u8 keys[MAX_COLUMN_INDEX + 1][8];
  u8 keyLen[MAX_COLUMN_INDEX + 1];
  // JSON of whole days (most dates), made once
  u8 days[65536][16];
  u8 dayLen[65536];
  // error
  i32 err;
  i64 errPos;
  i32 slowCalls;
  // memory: the end of the buffers made by init, the end of the configuration; the first output buffer
  u8 *resetTop, *configTop, *out0;
  i32 outCap0;
  // what the cached key and day JSON was made for (-1: nothing)
  i32 keysAlpha, daysDate1904;
} P;

static const u8 *fail(i32 code, const u8 *at) {
  if (!P.err) {
    P.err = code;
    P.errPos = P.base + (at - P.in);
  }
  return 0;
}
#define NF(at) return fail(NOT_FAST, (at))
#define UNSUP(at) return fail(UNSUPPORTED, (at))

// ---------------------------------------------------------------- setup (called from JS)
EXPORT(alloc) u8 *alloc(i32 n) { return n < 0 ? 0 : heap_alloc((usize)n); }

/** Caps the memory below the module's maximum (bytes; 0: no cap): a sheet needing more gets NO_MEMORY. */
EXPORT(set_max_bytes) void set_max_bytes(u32 bytes) { heap_max = bytes; }

/** Once per instance: the input and output buffers. 0, or NO_MEMORY. */
EXPORT(init) i32 init(i32 outCap) {
  P.in = heap_alloc(MAX_CARRY + PIECE_MAX + 2 * PAD);
  P.out = heap_alloc((usize)outCap + PAD);
  if (!P.in || !P.out) return NO_MEMORY;
  P.out0 = P.out;
  P.outCap0 = P.outCap = outCap;
  P.keysAlpha = P.daysDate1904 = -1;
  P.resetTop = P.configTop = heap_top;
  return 0;
}

/** Frees everything the last sheet allocated, its configuration too (a sheet of another workbook). */
EXPORT(reset) void reset(void) {
  heap_top = P.resetTop;
  P.configTop = 0;
  P.out = P.out0; // room() may have moved it above resetTop
  P.outCap = P.outCap0;
}

/** Marks the end of the workbook's configuration (styles, shared strings) just laid out after reset(). */
EXPORT(keep) void keep(void) { P.configTop = heap_top; }

/** Frees the last sheet's columns but keeps the workbook's configuration (keep()): 0, or -1. */
EXPORT(reuse) i32 reuse(void) {
  if (!P.configTop) return -1;
  heap_top = P.configTop;
  P.out = P.out0;
  P.outCap = P.outCap0;
  return 0;
}

/**
 * The sheet's configuration: the workbook's (laid out by JS in memory from alloc() before keep()) and the
 * sheet's prefix and the prefixes in scope (copied here: their memory may go). 0, or UNSUPPORTED.
 */
EXPORT(configure)
i32 configure(u8 *dateKind, u8 *bordered, i32 nStyles, u32 *sharedOff, u8 *sharedBlob, i32 sharedCount,
              i32 alpha, i32 date1904, const u8 *prefix, i32 prefixLen, const u8 *prefixes, i32 prefixesLen) {
  P.dateKind = dateKind;
  P.bordered = bordered;
  P.nStyles = nStyles;
  P.anyBorders = 0;
  for (i32 k = 0; k < nStyles; k++)
    if (bordered[k] == 1) P.anyBorders = 1;
  P.sharedOff = sharedOff;
  P.sharedBlob = sharedBlob;
  P.sharedCount = sharedCount;
  P.alpha = alpha;
  P.date1904 = date1904;
  static const char *local[6] = {"row", "c", "v", "f", "is", "t"};
  if (prefixLen > 24) return UNSUPPORTED;
  P.noPrefix = prefixLen == 0;
  for (i32 n = 0; n < 6; n++) {
    i32 at = 0;
    for (i32 k = 0; k < prefixLen; k++) P.names[n][at++] = prefix[k];
    for (const char *c = local[n]; *c; c++) P.names[n][at++] = (u8)*c;
    P.nameLen[n] = at;
  }
  P.rowTag[0] = '<';
  for (i32 k = 0; k < P.nameLen[0]; k++) P.rowTag[k + 1] = P.names[0][k];
  P.rowTagLen = P.nameLen[0] + 1;
  if (prefixesLen > (i32)sizeof P.prefixes) return UNSUPPORTED;
  for (i32 k = 0; k < prefixesLen; k++) P.prefixes[k] = prefixes[k];
  P.prefixesLen = prefixesLen;
  // The JSON of column keys and of whole days, made as met, depends on these two.
  if (P.keysAlpha != alpha)
    for (i32 c = 0; c <= MAX_COLUMN_INDEX; c++) P.keyLen[c] = 0;
  if (P.daysDate1904 != date1904)
    for (i32 d = 0; d < 65536; d++) P.dayLen[d] = 0;
  P.keysAlpha = alpha;
  P.daysDate1904 = date1904;
  return 0;
}

/** Starts a sheet (after configure or reuse): 0, or NO_MEMORY. */
EXPORT(begin) i32 begin(i32 expectedCells) {
  i32 cells = expectedCells < 256 ? 256 : expectedCells > (1 << 20) ? (1 << 20) : expectedCells;
  i32 rows = cells >> 2 < 64 ? 64 : cells >> 2;
  P.cellCap = cells;
  P.rowCap = rows;
  P.cols = (i32 *)heap_alloc((usize)cells * 4);
  P.kinds = heap_alloc((usize)cells);
  P.nums = (double *)heap_alloc((usize)cells * 8);
  P.rowNumbers = (i32 *)heap_alloc((usize)rows * 4);
  P.rowStart = (i32 *)heap_alloc((usize)(rows + 1) * 4);
  P.borderCap = 0;
  P.borders = 0;
  if (!P.cols || !P.kinds || !P.nums || !P.rowNumbers || !P.rowStart) return NO_MEMORY;
  P.carry = 0;
  P.base = 0;
  P.outPos = 0;
  P.outFlushed = 0;
  P.rowNumber = 0;
  P.nextCol = 0;
  P.jsonRow = -1;
  P.lastRow = -1;
  P.ordered = 1;
  P.rowCount = P.cellCount = P.borderCount = 0;
  P.texts = 0;
  P.textOff = 0;
  P.textCap = P.textLen = P.textOffCap = P.textCount = 0;
  P.err = 0;
  P.errPos = 0;
  P.knownPrefixLen = 0;
  P.slowCalls = 0;
  return 0;
}

// ---------------------------------------------------------------- bytes
static inline int isSpace(u8 b) { return b == 32 || b == 10 || b == 13 || b == 9; }
static inline int endsName(u8 b) { return b == 32 || b == '>' || b == '/' || b == 10 || b == 13 || b == 9; }

static inline const u8 *skipSpace(const u8 *i, const u8 *end) {
  while (i < end && isSpace(*i)) i++;
  return i;
}

/** `name` at `at`, followed by the end of a name: the pointer after it, else 0. */
static const char *const LOCAL[6] = {"row", "c", "v", "f", "is", "t"};
static const i32 LOCAL_LEN[6] = {3, 1, 1, 1, 2, 1};
static inline const u8 *nameAt(const u8 *at, const u8 *end, i32 n) {
  if (P.noPrefix) {
    // n is a constant at every call site: the names fold into the code.
    i32 len = LOCAL_LEN[n];
    if (at + len >= end) return 0;
    for (i32 k = 0; k < len; k++)
      if (at[k] != (u8)LOCAL[n][k]) return 0;
    return endsName(at[len]) ? at + len : 0;
  }
  const u8 *name = P.names[n];
  i32 len = P.nameLen[n];
  if (at + len >= end) return 0;
  for (i32 k = 0; k < len; k++)
    if (at[k] != name[k]) return 0;
  return endsName(at[len]) ? at + len : 0;
}

static inline const u8 *endTag(const u8 *at, const u8 *end, i32 n) {
  if (P.noPrefix) {
    i32 len = LOCAL_LEN[n];
    if (at + len + 3 > end || at[0] != '<' || at[1] != '/' || at[len + 2] != '>') NF(at);
    for (i32 k = 0; k < len; k++)
      if (at[2 + k] != (u8)LOCAL[n][k]) NF(at);
    return at + len + 3;
  }
  i32 len = P.nameLen[n];
  if (at + len + 3 > end || at[0] != '<' || at[1] != '/' || at[len + 2] != '>') NF(at);
  for (i32 k = 0; k < len; k++)
    if (at[2 + k] != P.names[n][k]) NF(at);
  return at + len + 3;
}

/** An attribute name from `i`: the pointer to its `=`. */
static inline const u8 *attributeName(const u8 *i, const u8 *end) {
  const u8 *start = i;
  for (; i < end; i++) {
    u8 b = *i;
    if (b == '=') break;
    if (b <= 32 || b == '"' || b == '\'' || b == '<' || b == '>' || b == '/') NF(i);
  }
  if (i == start || i + 1 >= end) NF(i);
  return i;
}

/** The closing quote of the value starting at `i` (`<` and `&` refused). */
static inline const u8 *attributeValue(const u8 *i, const u8 *end, u8 quote) {
  for (; i < end; i++) {
    u8 b = *i;
    if (b == quote) return i;
    if (b == '<' || b == '&') NF(i);
  }
  NF(i);
}

static int startsWith(const u8 *at, const char *s) {
  for (; *s; s++, at++)
    if (*at != (u8)*s) return 0;
  return 1;
}

/** Any other attribute: no declaration, a prefix in scope, no name twice in the tag. */
static int otherAttribute(const u8 *start, const u8 *end) {
  i32 len = (i32)(end - start);
  if (len >= 5 && startsWith(start, "xmlns")) return fail(NOT_FAST, start), 0;
  const u8 *colon = 0;
  for (const u8 *k = start; k < end; k++) {
    if (*k != ':') continue;
    if (colon) return fail(NOT_FAST, k), 0;
    colon = k;
  }
  if (colon) {
    if (colon == start || colon == end - 1) return fail(NOT_FAST, colon), 0;
    i32 plen = (i32)(colon - start);
    int known = plen == P.knownPrefixLen;
    for (i32 k = 0; known && k < plen; k++) known = start[k] == P.knownPrefix[k];
    if (!known) {
      int found = 0;
      for (i32 at = 0; at < P.prefixesLen && !found; at += 1 + P.prefixes[at]) {
        i32 n = P.prefixes[at];
        if (n != plen) continue;
        found = 1;
        for (i32 k = 0; found && k < n; k++) found = P.prefixes[at + 1 + k] == start[k];
      }
      if (!found) return fail(NOT_FAST, start), 0;
      if (plen > 64) return fail(UNSUPPORTED, start), 0; // FastRowParser reads it
      for (i32 k = 0; k < plen; k++) P.knownPrefix[k] = start[k];
      P.knownPrefixLen = plen;
    }
  }
  i32 count = P.otherCount;
  for (i32 k = 0; k < count; k++) {
    if (P.otherLen[k] != len) continue;
    const u8 *s = P.otherStart[k];
    int same = 1;
    for (i32 j = 0; same && j < len; j++) same = s[j] == start[j];
    if (same) return fail(NOT_FAST, start), 0;
  }
  if (count >= MAX_OTHER) return fail(UNSUPPORTED, start), 0;
  P.otherStart[count] = start;
  P.otherLen[count] = len;
  P.otherCount = count + 1;
  return 1;
}

/** Digits as a number (saturating well above any grid index); -1 when empty or not all digits. */
static inline i64 digitsOf(const u8 *s, const u8 *e) {
  if (s == e) return -1;
  i64 v = 0;
  for (; s < e; s++) {
    u32 d = (u32)*s - '0';
    if (d > 9) return -1;
    v = v * 10 + d;
    if (v > ((i64)1 << 40)) v = (i64)1 << 40;
  }
  return v;
}

static inline i64 columnOf(const u8 *s, const u8 *e) {
  i64 col = 0;
  const u8 *i = s;
  for (; i < e; i++) {
    u8 b = *i;
    if (b >= 65 && b <= 90) col = col * 26 + (b - 64);
    else if (b >= 97 && b <= 122) col = col * 26 + (b - 96);
    else break;
    if (col > ((i64)1 << 40)) col = (i64)1 << 40;
  }
  return i == s ? -1 : col - 1;
}

static int isAscii(const u8 *s, const u8 *e) {
  for (; s < e; s++)
    if (*s >= 128) return 0;
  return 1;
}

// ---------------------------------------------------------------- output
static int room(i32 n) {
  if (P.outPos + n <= P.outCap) return 1;
  if (P.outPos > 0) {
    js_drain(P.out, P.outPos);
    P.outFlushed += P.outPos;
    P.outPos = 0;
  }
  if (n > P.outCap) {
    // Bigger than the whole buffer (a long shared string): a bigger one.
    i32 cap = P.outCap;
    while (cap < n) cap *= 2;
    u8 *out = heap_alloc((usize)cap + PAD);
    if (!out) return fail(NO_MEMORY, P.in), 0;
    P.out = out;
    P.outCap = cap;
  }
  return 1;
}

static inline u8 *writeDigits(u8 *at, u32 v) {
  u8 tmp[12];
  i32 n = 0;
  do {
    tmp[n++] = (u8)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) *at++ = tmp[--n];
  return at;
}

static void makeKey(i32 col) {
  u8 *k = P.keys[col];
  i32 n = 0;
  k[n++] = '"';
  if (P.alpha) {
    u8 tmp[4];
    i32 t = 0;
    i32 v = col + 1;
    while (v > 0) {
      i32 rem = (v - 1) % 26;
      tmp[t++] = (u8)(65 + rem);
      v = (v - 1) / 26;
    }
    while (t) k[n++] = tmp[--t];
  } else {
    n = (i32)(writeDigits(k + n, (u32)col) - k);
  }
  k[n++] = '"';
  k[n++] = ':';
  P.keyLen[col] = (u8)n;
}

/** Room for a cell's key and `valueLen` bytes; writes `,` or the row's opening, then the key. */
static inline u8 *cellJson(i32 row, i32 col, i32 valueLen) {
  if (!room(valueLen + 64)) return 0;
  u8 *at = P.out + P.outPos;
  if (row != P.jsonRow) {
    if (P.jsonRow >= 0) {
      if (row < P.jsonRow) P.ordered = 0;
      at[0] = '}';
      at[1] = '}';
      at[2] = ',';
      at += 3;
    } else *at++ = '[';
    COPY(at, "{\"r\":", 5);
    at = writeDigits(at + 5, (u32)row);
    COPY(at, ",\"c\":{", 6);
    at += 6;
    P.jsonRow = row;
  } else *at++ = ',';
  if (!P.keyLen[col]) makeKey(col);
  COPY(at, P.keys[col], 8);
  return at + P.keyLen[col];
}

static const u8 TRUE16[16] = "true", FALSE16[16] = "false", NULL16[16] = "null";

static inline void jsonBytes(i32 row, i32 col, const u8 *v, i32 n) {
  u8 *at = cellJson(row, col, n);
  if (!at) return;
  if (n <= 16) COPY(at, v, 16);
  else COPY(at, v, n);
  P.outPos = (i32)(at + n - P.out);
}

static void jsonNumber(i32 row, i32 col, double num) {
  u8 *at = cellJson(row, col, 32);
  if (!at) return;
  P.slowCalls++;
  i32 n = js_format(num, at);
  P.outPos = (i32)(at + n - P.out);
}

// ---------------------------------------------------------------- columns
static int growCells(void) {
  i32 cap = P.cellCap * 2;
  i32 *cols = (i32 *)heap_alloc((usize)cap * 4);
  u8 *kinds = heap_alloc((usize)cap);
  double *nums = (double *)heap_alloc((usize)cap * 8);
  if (!cols || !kinds || !nums) return 0;
  COPY(cols, P.cols, (usize)P.cellCount * 4);
  COPY(kinds, P.kinds, (usize)P.cellCount);
  COPY(nums, P.nums, (usize)P.cellCount * 8);
  P.cols = cols;
  P.kinds = kinds;
  P.nums = nums;
  P.cellCap = cap;
  return 1;
}

static int growRows(void) {
  i32 cap = P.rowCap * 2;
  i32 *rn = (i32 *)heap_alloc((usize)cap * 4);
  i32 *rs = (i32 *)heap_alloc((usize)(cap + 1) * 4);
  if (!rn || !rs) return 0;
  COPY(rn, P.rowNumbers, (usize)P.rowCount * 4);
  COPY(rs, P.rowStart, (usize)P.rowCount * 4);
  P.rowNumbers = rn;
  P.rowStart = rs;
  P.rowCap = cap;
  return 1;
}

static inline int add(i32 row, i32 col, i32 kind, double num) {
  if (row != P.lastRow) {
    if (P.rowCount + 1 >= P.rowCap && !growRows()) return fail(NO_MEMORY, P.in), 0;
    P.rowNumbers[P.rowCount] = row;
    P.rowStart[P.rowCount] = P.cellCount;
    P.rowCount++;
    P.lastRow = row;
  }
  if (P.cellCount >= P.cellCap && !growCells()) return fail(NO_MEMORY, P.in), 0;
  i32 c = P.cellCount++;
  P.cols[c] = col;
  P.kinds[c] = (u8)kind;
  P.nums[c] = num;
  return 1;
}

static int addBorder(i32 row, i32 col) {
  if (P.borderCount + 2 > P.borderCap) {
    i32 cap = P.borderCap ? P.borderCap * 2 : 4096;
    i32 *b = (i32 *)heap_alloc((usize)cap * 4);
    if (!b) return 0;
    if (P.borderCount) COPY(b, P.borders, (usize)P.borderCount * 4);
    P.borders = b;
    P.borderCap = cap;
  }
  P.borders[P.borderCount++] = row;
  P.borders[P.borderCount++] = col;
  return 1;
}

// ---------------------------------------------------------------- texts
/** The length of the well-formed UTF-8 sequence at `p` (as TextDecoder reads it without replacing), or 0. */
static i32 utf8Length(const u8 *p, const u8 *e) {
  u8 c = p[0];
  i32 n;
  u8 lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f; // no surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f; // at most U+10FFFF
  } else return 0;
  if (e - p < n || p[1] < lo || p[1] > hi) return 0;
  for (i32 k = 2; k < n; k++)
    if (p[k] < 0x80 || p[k] > 0xbf) return 0;
  return n;
}

/** Room for `n` more bytes of text (the texts of the sheet's cells, one after the other); 0 when none. */
static int textRoom(i64 n) {
  if (P.textLen + n <= P.textCap) return 1;
  i64 cap = P.textCap ? P.textCap : 64 * 1024;
  while (cap < P.textLen + n) cap *= 2;
  if (cap > (1 << 30)) return 0;
  u8 *texts = heap_alloc((usize)cap);
  if (!texts) return 0;
  if (P.textLen) COPY(texts, P.texts, (usize)P.textLen);
  P.texts = texts;
  P.textCap = (i32)cap;
  return 1;
}

/** Ends the text written since the last one: its index (JS makes the segment's string of it), or -1. */
static i32 endText(void) {
  if (P.textCount + 2 > P.textOffCap) {
    i32 cap = P.textOffCap ? P.textOffCap * 2 : 1024;
    i32 *off = (i32 *)heap_alloc((usize)cap * 4);
    if (!off) return -1;
    if (P.textCount) COPY(off, P.textOff, (usize)(P.textCount + 1) * 4);
    else off[0] = 0;
    P.textOff = off;
    P.textOffCap = cap;
  }
  P.textOff[++P.textCount] = P.textLen;
  return P.textCount - 1;
}

static void putUtf8(u32 code) {
  u8 *at = P.texts + P.textLen;
  if (code < 0x80) at[0] = (u8)code, P.textLen += 1;
  else if (code < 0x800) {
    at[0] = (u8)(0xc0 | code >> 6);
    at[1] = (u8)(0x80 | (code & 63));
    P.textLen += 2;
  } else if (code < 0x10000) {
    at[0] = (u8)(0xe0 | code >> 12);
    at[1] = (u8)(0x80 | (code >> 6 & 63));
    at[2] = (u8)(0x80 | (code & 63));
    P.textLen += 3;
  } else {
    at[0] = (u8)(0xf0 | code >> 18);
    at[1] = (u8)(0x80 | (code >> 12 & 63));
    at[2] = (u8)(0x80 | (code >> 6 & 63));
    at[3] = (u8)(0x80 | (code & 63));
    P.textLen += 4;
  }
}

/**
 * Character data `[s, e)` appended to the current text as FastRowParser's textOf gives it: UTF-8, the five
 * predefined entities and character references resolved. Bytes that are not UTF-8 (TextDecoder would
 * replace them), a carriage return (line ends are normalised first), a reference decodeEntities would
 * refuse or one to a surrogate (a lone UTF-16 half in JS): UNSUPPORTED, the sheet goes back to JS.
 */
static int decodeText(const u8 *s, const u8 *e) {
  // Decoded text is never longer than its source.
  if (!textRoom(e - s)) return fail(NO_MEMORY, s), 0;
  for (const u8 *p = s; p < e;) {
    u8 c = *p;
    if (c >= 0x80) {
      i32 n = utf8Length(p, e);
      if (!n) return fail(UNSUPPORTED, p), 0;
      COPY(P.texts + P.textLen, p, (usize)n);
      P.textLen += n;
      p += n;
      continue;
    }
    if (c == '\r') return fail(UNSUPPORTED, p), 0;
    if (c != '&') {
      P.texts[P.textLen++] = c;
      p++;
      continue;
    }
    const u8 *semi = p + 1;
    while (semi < e && semi - p <= 12 && *semi != ';') semi++;
    if (semi >= e || semi - p > 12) return fail(UNSUPPORTED, p), 0;
    const u8 *n = p + 1;
    i64 len = semi - n;
    u32 code = 0;
    if (len >= 2 && n[0] == '#') {
      int hex = n[1] == 'x';
      const u8 *d = n + (hex ? 2 : 1);
      if (d >= semi) return fail(UNSUPPORTED, p), 0;
      u64 v = 0;
      for (; d < semi; d++) {
        u8 x = *d;
        u32 digit;
        if (x >= '0' && x <= '9') digit = x - '0';
        else if (hex && x >= 'a' && x <= 'f') digit = x - 'a' + 10;
        else if (hex && x >= 'A' && x <= 'F') digit = x - 'A' + 10;
        else return fail(UNSUPPORTED, p), 0;
        v = v * (hex ? 16 : 10) + digit;
      }
      if (v == 0 || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return fail(UNSUPPORTED, p), 0;
      code = (u32)v;
    } else if (len == 3 && n[0] == 'a' && n[1] == 'm' && n[2] == 'p') code = '&';
    else if (len == 2 && n[0] == 'l' && n[1] == 't') code = '<';
    else if (len == 2 && n[0] == 'g' && n[1] == 't') code = '>';
    else if (len == 4 && n[0] == 'q' && n[1] == 'u' && n[2] == 'o' && n[3] == 't') code = '"';
    else if (len == 4 && n[0] == 'a' && n[1] == 'p' && n[2] == 'o' && n[3] == 's') code = '\'';
    else return fail(UNSUPPORTED, p), 0;
    putUtf8(code);
    p = semi + 1;
  }
  return 1;
}

static const u8 HEX[16] = "0123456789abcdef";

/** A cell holding the text from `start` on (ended here) in the columns, and as JSON.stringify writes it. */
static int textCell(i32 start, i32 row, i32 col) {
  i64 escaped = 0;
  for (i32 k = start; k < P.textLen; k++) {
    u8 c = P.texts[k];
    if (c == '"' || c == '\\' || c == '\b' || c == '\t' || c == '\n' || c == '\f' || c == '\r') escaped += 1;
    else if (c < 0x20) escaped += 5;
  }
  i64 n = P.textLen - start;
  if (n + escaped > (1 << 28)) return fail(UNSUPPORTED, P.in), 0;
  i32 index = endText();
  if (index < 0) return fail(NO_MEMORY, P.in), 0;
  if (!add(row, col, K_TEXT, (double)index)) return 0;
  u8 *at = cellJson(row, col, (i32)(n + escaped + 2));
  if (!at) return 0;
  *at++ = '"';
  for (i32 k = start; k < start + n; k++) {
    u8 c = P.texts[k];
    if (c >= 0x20 && c != '"' && c != '\\') {
      *at++ = c;
      continue;
    }
    *at++ = '\\';
    if (c == '"' || c == '\\') *at++ = c;
    else if (c == '\b') *at++ = 'b';
    else if (c == '\t') *at++ = 't';
    else if (c == '\n') *at++ = 'n';
    else if (c == '\f') *at++ = 'f';
    else if (c == '\r') *at++ = 'r';
    else {
      COPY(at, "u00", 3);
      at[3] = HEX[c >> 4];
      at[4] = HEX[c & 15];
      at += 5;
    }
  }
  *at++ = '"';
  P.outPos = (i32)(at - P.out);
  return 1;
}

/** A formula's text result (`t="str"`): stored as FastRowParser stores it, a text (an empty one too). */
static int textValue(const u8 *s, const u8 *e, i32 row, i32 col) {
  i32 start = P.textLen;
  return decodeText(s, e) && textCell(start, row, col);
}

/**
 * An error (`t="e"`) or ISO date (`t="d"`) cell: its text as for `t="str"`, but no cell at all when the
 * text is blank (storeValue keeps it only when `raw.trim() !== ''`). Blank in ASCII is decided here; a
 * text of white space and other characters (which may be Unicode white space) goes back to JS.
 */
static int textValueUnlessBlank(const u8 *s, const u8 *e, i32 row, i32 col) {
  i32 start = P.textLen;
  if (!decodeText(s, e)) return 0;
  int nonAscii = 0;
  for (i32 k = start; k < P.textLen; k++) {
    u8 c = P.texts[k];
    if (c >= 0x80) nonAscii = 1;
    else if (c != ' ' && (c < '\t' || c > '\r')) return textCell(start, row, col);
  }
  if (nonAscii) return fail(UNSUPPORTED, s), 0;
  P.textLen = start; // blank: no cell, no text
  return 1;
}

// ---------------------------------------------------------------- dates (serialToIso + JSON.stringify)
static u8 *two(u8 *at, i32 v) {
  at[0] = (u8)('0' + v / 10);
  at[1] = (u8)('0' + v % 10);
  return at + 2;
}

/** Days since 1970-01-01 -> y/m/d (Howard Hinnant's civil_from_days). */
static void civil(i64 z, i32 *y, i32 *m, i32 *d) {
  z += 719468;
  i64 era = (z >= 0 ? z : z - 146096) / 146097;
  i64 doe = z - era * 146097;
  i64 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  i64 yy = yoe + era * 400;
  i64 doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  i64 mp = (5 * doy + 2) / 153;
  i32 dd = (i32)(doy - (153 * mp + 2) / 5 + 1);
  i32 mm = (i32)(mp < 10 ? mp + 3 : mp - 9);
  *y = (i32)(yy + (mm <= 2));
  *m = mm;
  *d = dd;
}

static i32 dateJson(double serial, int time, u8 *out) {
  double fdays = __builtin_floor(serial);
  i64 days = (i64)fdays;
  double x = (serial - fdays) * 86400000.0;
  double r = __builtin_floor(x);
  if (x - r >= 0.5) r += 1; // Math.round
  i64 ms = (i64)r;
  if (ms >= 86400000) {
    days += 1;
    ms -= 86400000;
  }
  u8 *at = out;
  *at++ = '"';
  if (!(time && days == 0)) {
    i32 y, m, d;
    if (P.date1904) civil(days - 24107, &y, &m, &d);
    else if (days == 60) y = 1900, m = 2, d = 29;
    else civil((days < 60 ? days + 1 : days) - 25569, &y, &m, &d);
    if (y > 9999) {
      // toISOString's expanded year (+010000-01-01…), cut to 10 characters as serialToIso does.
      *at++ = '+';
      at = two(at, y / 10000);
      at = two(at, y / 100 % 100);
      at = two(at, y % 100);
      *at++ = '-';
      at = two(at, m);
    } else {
      at = two(at, y / 100);
      at = two(at, y % 100);
      *at++ = '-';
      at = two(at, m);
      *at++ = '-';
      at = two(at, d);
    }
    if (ms == 0) {
      *at++ = '"';
      return (i32)(at - out);
    }
    *at++ = 'T';
  }
  i64 secs = ms / 1000;
  at = two(at, (i32)(secs / 3600));
  *at++ = ':';
  at = two(at, (i32)(secs % 3600 / 60));
  *at++ = ':';
  at = two(at, (i32)(secs % 60));
  i32 millis = (i32)(ms % 1000);
  if (millis) {
    *at++ = '.';
    *at++ = (u8)('0' + millis / 100);
    at = two(at, millis % 100);
  }
  *at++ = '"';
  return (i32)(at - out);
}

// ---------------------------------------------------------------- values
static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static inline int storeNumber(i32 row, i32 col, i64 style, double num, int haveFraction, i32 fraction,
                              const u8 *start, const u8 *end, int copyable) {
  i32 date = style < P.nStyles ? P.dateKind[style] : 0;
  if (date != 0 && num >= 0 && num <= MAX_DATE_SERIAL) {
    if (!add(row, col, date == 2 ? K_TIME : K_DATE, num)) return 0;
    if (date == 1 && num < 65536 && num == __builtin_floor(num)) {
      i32 day = (i32)num;
      if (!P.dayLen[day]) P.dayLen[day] = (u8)dateJson(num, 0, P.days[day]);
      jsonBytes(row, col, P.days[day], P.dayLen[day]);
      return 1;
    }
    u8 tmp[48];
    i32 n = dateJson(num, date == 2, tmp);
    jsonBytes(row, col, tmp, n);
    return 1;
  }
  if (!add(row, col, haveFraction && copyable ? DECIMALS + fraction : K_NUMBER, num)) return 0;
  if (copyable) jsonBytes(row, col, start, (i32)(end - start));
  else jsonNumber(row, col, num);
  return 1;
}

/** A plain decimal number cell (FastRowParser.number); 0: not plain (caller takes the slow path). */
static inline int number(const u8 *start, const u8 *end, i32 row, i32 col, i64 style, int *ok) {
  const u8 *i = start;
  int negative = *i == '-';
  if (negative) i++;
  const u8 *intStart = i;
  u64 m = 0; // exact below 16 digits (the only case used), as FastRowParser's double accumulation
  for (; i < end; i++) {
    u32 d = (u32)*i - '0';
    if (d > 9) break;
    m = m * 10 + d;
  }
  i32 intDigits = (i32)(i - intStart);
  if (intDigits == 0 || intDigits > 15) return 0;
  i32 fraction = 0;
  if (i < end) {
    if (*i != '.') return 0;
    const u8 *fracStart = ++i;
    for (; i < end; i++) {
      u32 d = (u32)*i - '0';
      if (d > 9) return 0;
      m = m * 10 + d;
    }
    fraction = (i32)(i - fracStart);
    if (fraction == 0 || intDigits + fraction > 15) return 0;
  }
  double num = fraction == 0 ? (double)m : (double)m / POW10[fraction];
  if (negative) num = -num;
  int leadingZero = intDigits > 1 && *intStart == '0';
  int copyable;
  if (fraction == 0) copyable = !leadingZero && !(negative && m == 0);
  else {
    copyable = end - start <= 12 && !leadingZero && end[-1] != '0';
    if (copyable && intDigits == 1 && *intStart == '0') {
      i32 zeros = 0;
      while (intStart[2 + zeros] == '0') zeros++;
      copyable = zeros <= 5;
    }
  }
  *ok = storeNumber(row, col, style, num, fraction != 0, fraction, start, end, copyable);
  return 1;
}

/** jsonFractionDigits (cell-sink.ts) on ASCII text. */
static i32 jsonFractionDigits(const u8 *s, const u8 *e) {
  i32 n = (i32)(e - s);
  if (n > 12) return 0;
  const u8 *i = s + (n > 0 && *s == '-');
  const u8 *intStart = i;
  while (i < e && (u32)*i - '0' <= 9) i++;
  i32 intDigits = (i32)(i - intStart);
  if (intDigits == 0 || (intDigits > 1 && *intStart == '0')) return 0;
  if (i >= e - 1 || *i != '.') return 0;
  const u8 *fracStart = ++i;
  while (i < e && (u32)*i - '0' <= 9) i++;
  if (i != e || e[-1] == '0') return 0;
  if (intDigits == 1 && *intStart == '0') {
    i32 zeros = 0;
    while (fracStart + zeros < e && fracStart[zeros] == '0') zeros++;
    if (zeros > 5) return 0;
  }
  return (i32)(e - fracStart);
}

/** storeValue's default branch for text number() did not take (`+raw` through JS). */
static int slowNumber(const u8 *s, const u8 *e, i32 row, i32 col, i64 style, const u8 *at) {
  if (s == e) return 1; // '' is no value
  for (const u8 *k = s; k < e; k++)
    if (*k == '&' || *k == '\r' || *k >= 128) return fail(UNSUPPORTED, at), 0; // textOf decodes
  P.slowCalls++;
  double num = js_parse(s, (i32)(e - s));
  if (num != num) return fail(UNSUPPORTED, at), 0; // NaN: a text cell
  i32 date = style < P.nStyles ? P.dateKind[style] : 0;
  if (date != 0 && num >= 0 && num <= MAX_DATE_SERIAL) return storeNumber(row, col, style, num, 0, 0, s, e, 0);
  i32 decimals = num == __builtin_floor(num) ? 0 : jsonFractionDigits(s, e);
  if (!add(row, col, decimals > 0 ? DECIMALS + decimals : K_NUMBER, num)) return 0;
  // Number kind: String(num) (valueJson; a non-finite value is null); DECIMALS: toFixed gives the text.
  if (decimals > 0) jsonBytes(row, col, s, (i32)(e - s));
  else if (num - num != 0) jsonBytes(row, col, NULL16, 4);
  else jsonNumber(row, col, num);
  return 1;
}

/** Every `&` in [s, e) is a reference the tokenizer accepts (referencesValid in fast-rows.ts). */
static int referencesValid(const u8 *s, const u8 *e) {
  for (const u8 *amp = s; amp < e; amp++) {
    if (*amp != '&') continue;
    const u8 *semi = amp + 1;
    while (semi < e && *semi != ';') semi++;
    if (semi >= e || semi - amp > 12) return 0;
    const u8 *n = amp + 1;
    i32 len = (i32)(semi - n);
    if ((len == 3 && startsWith(n, "amp")) || (len == 2 && (startsWith(n, "lt") || startsWith(n, "gt"))) ||
        (len == 4 && (startsWith(n, "quot") || startsWith(n, "apos"))))
      continue;
    int hex = len > 1 && n[1] == 'x';
    if (n[0] != '#' || len < (hex ? 3 : 2)) return 0;
    u64 code = 0;
    for (const u8 *k = n + (hex ? 2 : 1); k < semi; k++) {
      u8 c = *k;
      u32 d;
      if (c >= '0' && c <= '9') d = c - '0';
      else if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
      else return 0;
      code = code * (hex ? 16 : 10) + d;
    }
    if (!(code > 0 && code <= 0x10ffff)) return 0;
  }
  return 1;
}

/** The rest of a start tag whose name ends at `i` (attributes checked, ignored): after it; *closed when `/>`. */
static const u8 *startTagRest(const u8 *i, const u8 *end, int *closed) {
  P.otherCount = 0;
  *closed = 0;
  for (;;) {
    i = skipSpace(i, end);
    if (i >= end) NF(i);
    u8 b = *i;
    if (b == '>') return i + 1;
    if (b == '/') {
      if (i[1] != '>') NF(i);
      *closed = 1;
      return i + 2;
    }
    const u8 *nameStart = i;
    const u8 *eq = attributeName(i, end);
    if (!eq) return 0;
    u8 quote = eq[1];
    if (quote != '"' && quote != '\'') NF(eq + 1);
    const u8 *ve = attributeValue(eq + 2, end, quote);
    if (!ve) return 0;
    i = ve + 1;
    if (!otherAttribute(nameStart, eq)) return 0;
  }
}

#define T_NONE 0
#define T_S 1
#define T_N 2
#define T_B 3
#define T_INLINE 4
#define T_OTHER 5
#define T_STR 6
#define T_ERROR_OR_DATE 7

static const u8 *cell(const u8 *i, const u8 *end) {
  i64 col = -1, style = 0;
  i32 type = T_NONE, seen = 0, selfClosing = 0;
  P.otherCount = 0;
  for (;;) {
    i = skipSpace(i, end);
    if (i >= end) NF(i);
    u8 b = *i;
    if (b == '>') {
      i++;
      break;
    }
    if (b == '/') {
      if (i[1] != '>') NF(i);
      selfClosing = 1;
      i += 2;
      break;
    }
    const u8 *nameStart = i;
    const u8 *eq = (i[1] == '=' && (b == 'r' || b == 's' || b == 't')) ? i + 1 : attributeName(i, end);
    if (!eq) return 0;
    u8 quote = eq[1];
    if (quote != '"' && quote != '\'') NF(eq + 1);
    const u8 *vs = eq + 2;
    const u8 *ve = attributeValue(vs, end, quote);
    if (!ve) return 0;
    i = ve + 1;
    if (eq - nameStart != 1) {
      if (!otherAttribute(nameStart, eq)) return 0;
      continue;
    }
    if (b == 'r') {
      if (seen & 1) NF(nameStart);
      seen |= 1;
      col = columnOf(vs, ve);
    } else if (b == 's') {
      if (seen & 2) NF(nameStart);
      seen |= 2;
      style = digitsOf(vs, ve);
      if (style < 0) NF(vs);
    } else if (b == 't') {
      if (seen & 4) NF(nameStart);
      seen |= 4;
      i64 n = ve - vs;
      if (n == 1 && *vs == 's') type = T_S;
      else if (n == 1 && *vs == 'n') type = T_N;
      else if (n == 1 && *vs == 'b') type = T_B;
      else if (n == 1 && (*vs == 'e' || *vs == 'd')) type = T_ERROR_OR_DATE;
      else {
        if (!isAscii(vs, ve)) NF(vs);
        // other types: values not read here (below)
        if (n == 3 && vs[0] == 's' && vs[1] == 't' && vs[2] == 'r') type = T_STR;
        else if (n == 9 && startsWith(vs, "inlineStr")) type = T_INLINE;
        else type = T_OTHER;
      }
    } else if (!otherAttribute(nameStart, eq)) return 0;
  }
  i64 column = col < 0 ? P.nextCol : col;
  if (column > MAX_COLUMN_INDEX) NF(i);
  P.nextCol = (i32)column + 1;
  i32 row = P.rowNumber;
  if (P.anyBorders && style < P.nStyles && P.bordered[style] == 1 && !addBorder(row, (i32)column))
    return fail(NO_MEMORY, i);
  if (selfClosing) return i;

  const u8 *vStart = 0, *vEnd = 0;
  int hadF = 0;
  i32 inlineStart = -1; // where the inline string's text begins among the texts
  for (;;) {
    i = skipSpace(i, end);
    if (i + 1 >= end || *i != '<') NF(i);
    if (i[1] == '/') {
      i = endTag(i, end, 1);
      if (!i) return 0;
      break;
    }
    const u8 *at = nameAt(i + 1, end, 2);
    if (at) {
      if (vStart) NF(i);
      int closed = 0;
      const u8 *after = *at == '>' ? at + 1 : startTagRest(at, end, &closed);
      if (!after) return 0;
      if (closed) {
        vStart = vEnd = i = after;
        continue;
      }
      const u8 *lt = after;
      while (lt < end && *lt != '<') lt++;
      if (lt >= end) NF(lt);
      vStart = after;
      vEnd = lt;
      i = endTag(lt, end, 2);
      if (!i) return 0;
      continue;
    }
    at = nameAt(i + 1, end, 3);
    if (at) {
      if (hadF) NF(i);
      hadF = 1;
      int closed = 0;
      const u8 *cs = *at == '>' ? at + 1 : startTagRest(at, end, &closed);
      if (!cs) return 0;
      if (closed) {
        i = cs;
        continue;
      }
      const u8 *lt = cs;
      int amp = 0;
      for (; lt < end; lt++) {
        u8 c = *lt;
        if (c == '<') break;
        if (c == '&') amp = 1;
      }
      if (lt >= end || (amp && !referencesValid(cs, lt))) NF(lt);
      i = endTag(lt, end, 3);
      if (!i) return 0;
      continue;
    }
    at = nameAt(i + 1, end, 4);
    if (at) {
      // <is> holding <t> elements only, as FastRowParser reads it; anything else is its decision.
      if (type != T_INLINE || inlineStart >= 0 || vStart) UNSUP(i);
      inlineStart = P.textLen;
      int closed = 0;
      i = startTagRest(at, end, &closed);
      if (!i) return 0;
      if (closed) continue;
      for (;;) {
        i = skipSpace(i, end);
        if (i + 1 >= end || *i != '<') NF(i);
        if (i[1] == '/') {
          i = endTag(i, end, 4);
          if (!i) return 0;
          break;
        }
        const u8 *t = nameAt(i + 1, end, 5);
        if (!t) UNSUP(i);
        i = startTagRest(t, end, &closed);
        if (!i) return 0;
        if (closed) continue;
        const u8 *lt = i;
        while (lt < end && *lt != '<') lt++;
        if (lt >= end) NF(lt);
        if (!decodeText(i, lt)) return 0;
        i = endTag(lt, end, 5);
        if (!i) return 0;
      }
      continue;
    }
    NF(i);
  }
  if (inlineStart >= 0) {
    if (vStart) UNSUP(vStart); // which is the value depends on their order: FastRowParser's decision
    // `_xHHHH_` escapes (unescapeOoxmlText) are decoded in JS.
    for (i32 k = inlineStart; k + 1 < P.textLen; k++)
      if (P.texts[k] == '_' && P.texts[k + 1] == 'x') UNSUP(i);
    return textCell(inlineStart, row, (i32)column) ? i : 0;
  }
  if (!vStart) return i;
  if (type == T_NONE || type == T_N) {
    int ok = 1;
    if (number(vStart, vEnd, row, (i32)column, style, &ok)) return ok ? i : 0;
    return slowNumber(vStart, vEnd, row, (i32)column, style, vStart) ? i : 0;
  }
  if (type == T_S) {
    i64 index = digitsOf(vStart, vEnd);
    if (index >= 0 && vEnd - vStart <= 9) {
      if (index < P.sharedCount) {
        if (!add(row, (i32)column, K_SHARED, (double)index)) return 0;
        u32 s = P.sharedOff[index], e = P.sharedOff[index + 1];
        jsonBytes(row, (i32)column, P.sharedBlob + s, (i32)(e - s));
      }
      return i;
    }
    if (vStart == vEnd) return i; // `<v/>`: no index
    UNSUP(vStart);
  }
  if (type == T_B && vEnd - vStart == 1 && (*vStart == '0' || *vStart == '1')) {
    int yes = *vStart == '1';
    if (!add(row, (i32)column, yes ? K_TRUE : K_FALSE, 0)) return 0;
    jsonBytes(row, (i32)column, yes ? TRUE16 : FALSE16, yes ? 4 : 5);
    return i;
  }
  if (type == T_STR) return textValue(vStart, vEnd, row, (i32)column) ? i : 0;
  if (type == T_ERROR_OR_DATE) return textValueUnlessBlank(vStart, vEnd, row, (i32)column) ? i : 0;
  UNSUP(vStart);
}

static const u8 *rowEl(const u8 *i, const u8 *end) {
  i64 r = -1;
  int hasHeight = 0, hidden = 0, selfClosing = 0;
  double height = 0;
  P.otherCount = 0;
  for (;;) {
    i = skipSpace(i, end);
    if (i >= end) NF(i);
    u8 b = *i;
    if (b == '>') {
      i++;
      break;
    }
    if (b == '/') {
      if (i[1] != '>') NF(i);
      selfClosing = 1;
      i += 2;
      break;
    }
    const u8 *nameStart = i;
    const u8 *eq = attributeName(i, end);
    if (!eq) return 0;
    u8 quote = eq[1];
    if (quote != '"' && quote != '\'') NF(eq + 1);
    const u8 *vs = eq + 2;
    const u8 *ve = attributeValue(vs, end, quote);
    if (!ve) return 0;
    i = ve + 1;
    i64 nameLength = eq - nameStart;
    if (nameLength == 1 && *nameStart == 'r') {
      if (r != -1) NF(nameStart);
      r = digitsOf(vs, ve);
      if (r < 0) NF(vs);
    } else if (nameLength == 2 && nameStart[0] == 'h' && nameStart[1] == 't') {
      if (hasHeight || !isAscii(vs, ve)) NF(nameStart);
      hasHeight = 1;
      P.slowCalls++;
      height = js_parse(vs, (i32)(ve - vs));
    } else {
      if (!otherAttribute(nameStart, eq)) return 0;
      if (nameLength == 6 && startsWith(nameStart, "hidden"))
        hidden = (ve - vs == 1 && *vs == '1') || (ve - vs == 4 && startsWith(vs, "true"));
    }
  }
  i64 rowNumber = r < 0 ? (i64)P.rowNumber + 1 : r;
  if (rowNumber < 1 || rowNumber > MAX_ROW) NF(i);
  P.rowNumber = (i32)rowNumber;
  P.nextCol = 0;
  if (hidden) js_row_height((i32)rowNumber, 0);
  else if (hasHeight) js_row_height((i32)rowNumber, height);
  if (selfClosing) return i;
  for (;;) {
    i = skipSpace(i, end);
    if (i + 1 >= end || *i != '<') NF(i);
    if (i[1] == '/') return endTag(i, end, 0);
    const u8 *after = nameAt(i + 1, end, 1);
    if (!after) NF(i);
    i = cell(after, end);
    if (!i) return 0;
  }
}

static int parse(const u8 *i, const u8 *end) {
  for (;;) {
    i = skipSpace(i, end);
    if (i >= end) return 1;
    if (*i != '<') return fail(NOT_FAST, i), 0;
    const u8 *after = nameAt(i + 1, end, 0);
    if (!after) return fail(NOT_FAST, i), 0;
    i = rowEl(after, end);
    if (!i) return 0;
  }
}

// ---------------------------------------------------------------- streaming
EXPORT(in_ptr) u8 *in_ptr(void) { return P.in + P.carry; }

/** The next `n` bytes are at in_ptr(): reads the whole rows, keeps the rest. */
EXPORT(feed) i32 feed(i32 n) {
  if (P.err) return P.err;
  if (n > PIECE_MAX) return fail(UNSUPPORTED, P.in + P.carry), P.err;
  i32 total = P.carry + n;
  for (i32 k = 0; k < PAD; k++) P.in[total + k] = 0;
  // The last row start (looked for in the new bytes only, and the seam).
  const u8 *tag = P.rowTag;
  i32 tl = P.rowTagLen;
  i32 lo = P.carry - tl + 1;
  if (lo < 1) lo = 1;
  i32 last = -1;
  for (i32 k = total - tl; k >= lo; k--) {
    if (P.in[k] != '<') continue;
    i32 j = 1;
    while (j < tl && P.in[k + j] == tag[j]) j++;
    if (j == tl) {
      last = k;
      break;
    }
  }
  if (last < 0) {
    // FastRowParser decides about rows this long (its limit is counted a little differently).
    if (total > MAX_CARRY) return fail(UNSUPPORTED, P.in), P.err;
    P.carry = total;
    return 0;
  }
  if (!parse(P.in, P.in + last)) return P.err;
  i32 rest = total - last;
  __builtin_memmove(P.in, P.in + last, (usize)rest);
  P.base += last;
  P.carry = rest;
  return 0;
}

EXPORT(finish) i32 finish(void) {
  if (P.err) return P.err;
  if (P.carry > 0) {
    for (i32 k = 0; k < PAD; k++) P.in[P.carry + k] = 0;
    if (!parse(P.in, P.in + P.carry)) return P.err;
    P.base += P.carry;
    P.carry = 0;
  }
  if (P.jsonRow >= 0) {
    if (!room(3)) return NO_MEMORY;
    P.out[P.outPos++] = '}';
    P.out[P.outPos++] = '}';
    P.out[P.outPos++] = ']';
  }
  if (P.outPos) {
    js_drain(P.out, P.outPos);
    P.outFlushed += P.outPos;
    P.outPos = 0;
  }
  if (P.rowCount + 1 > P.rowCap && !growRows()) return NO_MEMORY;
  P.rowStart[P.rowCount] = P.cellCount;
  return 0;
}

EXPORT(err_code) i32 err_code(void) { return P.err; }
EXPORT(err_pos) double err_pos(void) { return (double)P.errPos; }
EXPORT(json_bytes) double json_bytes(void) { return (double)P.outFlushed; }
EXPORT(ordered) i32 ordered(void) { return P.ordered; }
EXPORT(slow_calls) i32 slow_calls(void) { return P.slowCalls; }
EXPORT(row_count) i32 row_count(void) { return P.rowCount; }
EXPORT(cell_count) i32 cell_count(void) { return P.cellCount; }
EXPORT(border_count) i32 border_count(void) { return P.borderCount; }
EXPORT(p_row_numbers) i32 *p_row_numbers(void) { return P.rowNumbers; }
EXPORT(p_row_start) i32 *p_row_start(void) { return P.rowStart; }
EXPORT(p_cols) i32 *p_cols(void) { return P.cols; }
EXPORT(p_kinds) u8 *p_kinds(void) { return P.kinds; }
EXPORT(p_nums) double *p_nums(void) { return P.nums; }
EXPORT(p_borders) i32 *p_borders(void) { return P.borders; }
EXPORT(text_count) i32 text_count(void) { return P.textCount; }
EXPORT(p_text_off) i32 *p_text_off(void) { return P.textOff; }
EXPORT(p_texts) u8 *p_texts(void) { return P.texts; }
/** A date's JSON (tests: against WorkbookValues.dateJson), in the date system of the last configure. */
EXPORT(date_json) i32 date_json(double serial, i32 time, u8 *out) {
  return dateJson(serial, time, out);
}

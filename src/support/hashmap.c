/* Passage — open-addressing hash map over a dense entry array (STYLE rule
 * 14): linear probing on an int32 slot table, iteration in insertion order.
 * Keys are pointers (key_len PSGI_PTR_KEY) or byte strings the caller keeps
 * alive. */
#include "support/support.h"

/* Word-at-a-time (xxHash64's round and avalanche): four independent lanes
 * over 32-byte blocks, so a long key costs about a cycle per 8 bytes instead
 * of a dependent multiply per byte (CSE hashes samples of every weight).
 * Loads go through memcpy (unaligned keys); values are host-order, never
 * stored. */
enum { P1 = 0, P2, P3, P4, P5 };
static const uint64_t prime[] = {0x9e3779b185ebca87ull, 0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull,
                                 0x85ebca77c2b2ae63ull, 0x27d4eb2f165667c5ull};

static uint64_t rotl(uint64_t x, int r) { return x << r | x >> (64 - r); }
static uint64_t load64(const unsigned char *s) {
  uint64_t w;
  memcpy(&w, s, sizeof w);
  return w;
}
static uint64_t round64(uint64_t acc, uint64_t w) { return rotl(acc + w * prime[P2], 31) * prime[P1]; }
static uint64_t merge64(uint64_t h, uint64_t lane) { return (h ^ round64(0, lane)) * prime[P1] + prime[P4]; }

uint64_t psgi_hash_bytes(const void *p, size_t n) {
  const unsigned char *s = p, *end = s + n;
  uint64_t h;
  if (n >= 32) {
    uint64_t a = prime[P1] + prime[P2], b = prime[P2], c = 0, d = 0 - prime[P1];
    for (; end - s >= 32; s += 32) {
      a = round64(a, load64(s));
      b = round64(b, load64(s + 8));
      c = round64(c, load64(s + 16));
      d = round64(d, load64(s + 24));
    }
    h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18);
    h = merge64(merge64(merge64(merge64(h, a), b), c), d);
  } else {
    h = prime[P5];
  }
  h += (uint64_t)n;
  for (; end - s >= 8; s += 8) h = rotl(h ^ round64(0, load64(s)), 27) * prime[P1] + prime[P4];
  if (end - s >= 4) {
    uint32_t w;
    memcpy(&w, s, sizeof w);
    h = rotl(h ^ (uint64_t)w * prime[P1], 23) * prime[P2] + prime[P3];
    s += 4;
  }
  for (; s < end; s++) h = rotl(h ^ *s * prime[P5], 11) * prime[P1];
  h ^= h >> 33;
  h *= prime[P2];
  h ^= h >> 29;
  h *= prime[P3];
  h ^= h >> 32;
  return h;
}

/* psgi_hash_mix(0, p), inlined into the pointer-keyed get and put. */
static inline uint64_t hash_ptr(const void *p) { return psgi_hash_ptr(p); }

void psgi_map_init(psgi_map *m, psg_ctx *ctx) {
  memset(m, 0, sizeof *m);
  m->ctx = ctx;
}

void psgi_map_fini(psgi_map *m) {
  psgi_free(m->ctx, m->entries);
  psgi_free(m->ctx, m->slots);
  m->entries = NULL;
  m->slots = NULL;
  m->len = m->cap = m->nslots = 0;
}

static bool key_eq(const psgi_map_entry *e, uint64_t h, const void *key, size_t len) {
  if (e->hash != h || e->key_len != len) return false;
  return len == PSGI_PTR_KEY ? e->key == key : memcmp(e->key, key, len) == 0;
}

static uint64_t slot_of(uint64_t h, size_t index) { return (h >> 32) << 32 | (uint64_t)(index + 1); }
static size_t slot_index(uint64_t slot) { return (size_t)(uint32_t)slot - 1; }
static bool slot_tag_is(uint64_t slot, uint64_t h) { return slot >> 32 == h >> 32; }

void psgi_map_clear(psgi_map *m) {
  if (!m->len) return;
  if (m->len * 16 < m->nslots) {
    /* Few entries in a large table: empty their slots only. */
    size_t mask = m->nslots - 1;
    for (size_t k = 0; k < m->len; k++) {
      size_t i = m->entries[k].hash & mask;
      while (slot_index(m->slots[i]) != k) i = (i + 1) & mask;
      m->slots[i] = 0;
    }
  } else {
    memset(m->slots, 0, m->nslots * sizeof *m->slots);
  }
  m->len = 0;
}

/* The slot holding `key`, or the empty slot where it would go. */
static size_t probe(const psgi_map *m, uint64_t h, const void *key, size_t len) {
  size_t mask = m->nslots - 1, i = h & mask;
  for (;; i = (i + 1) & mask) {
    uint64_t s = m->slots[i];
    if (!s || (slot_tag_is(s, h) && key_eq(&m->entries[slot_index(s)], h, key, len))) return i;
  }
}

static psgi_map_entry *find(const psgi_map *m, uint64_t h, const void *key, size_t len) {
  if (!m->nslots) return NULL;
  uint64_t s = m->slots[probe(m, h, key, len)];
  return s ? &m->entries[slot_index(s)] : NULL;
}

/* Rebuilds the slot table larger (load kept under 1/2): four times the size
 * while small, so a map grown one node at a time over a graph of thousands
 * rehashes a few times, not a dozen; twice beyond. The entry array grows on
 * its own (doubling, in put), so a growth does not copy a tail of unused
 * entries sized for the slot table. */
static bool rehash(psgi_map *m, size_t n);

static bool grow_slots(psgi_map *m) {
  return rehash(m, !m->nslots ? 16 : m->nslots < 8192 ? m->nslots * 4 : m->nslots * 2);
}

/* The slot table rebuilt with n (a power of two) slots. */
static bool rehash(psgi_map *m, size_t n) {
  if (n > (size_t)INT32_MAX) return false;
  uint64_t *slots = psgi_calloc(m->ctx, n * sizeof *slots);
  if (!slots) return false;
  size_t mask = n - 1;
  for (size_t k = 0; k < m->len; k++) {
    size_t i = m->entries[k].hash & mask;
    while (slots[i]) i = (i + 1) & mask;
    slots[i] = slot_of(m->entries[k].hash, k);
  }
  psgi_free(m->ctx, m->slots);
  m->slots = slots;
  m->nslots = n;
  return true;
}

/* The slot holding pointer key `key`, or the empty slot where it would go:
 * probe() for PSGI_PTR_KEY without the memcmp branch. */
static size_t probe_ptr(const psgi_map *m, uint64_t h, const void *key) {
  size_t mask = m->nslots - 1, i = h & mask;
  for (;; i = (i + 1) & mask) {
    uint64_t s = m->slots[i];
    if (!s) return i;
    if (slot_tag_is(s, h)) {
      const psgi_map_entry *e = &m->entries[slot_index(s)];
      if (e->key == key && e->key_len == PSGI_PTR_KEY) return i;
    }
  }
}

/* Takes slot i (empty) for a new entry; NULL on OOM. */
static psgi_map_entry *insert_at(psgi_map *m, size_t i, uint64_t h, const void *key, size_t len) {
  if (m->len == m->cap && !psgi_vec_reserve_(m->ctx, (void **)&m->entries, &m->cap, sizeof *m->entries, m->len + 1))
    return NULL;
  m->slots[i] = slot_of(h, m->len);
  psgi_map_entry *e = &m->entries[m->len++];
  e->key = key;
  e->key_len = len;
  e->hash = h;
  e->value = NULL;
  return e;
}

/* One probe finds the key or the slot a new entry takes. */
static psgi_map_entry *put(psgi_map *m, uint64_t h, const void *key, size_t len, bool *is_new) {
  if ((m->len + 1) * 2 > m->nslots && !grow_slots(m)) return NULL;
  size_t i = probe(m, h, key, len);
  if (is_new) *is_new = !m->slots[i];
  if (m->slots[i]) return &m->entries[slot_index(m->slots[i])];
  return insert_at(m, i, h, key, len);
}

bool psgi_map_reserve(psgi_map *m, size_t n) {
  if (n > (size_t)INT32_MAX / 2) n = (size_t)INT32_MAX / 2; /* a hint: the table may still grow later */
  size_t slots = 16;
  while (slots < n * 2) slots *= 2;
  if (slots > m->nslots && !rehash(m, slots)) return false;
  return n <= m->cap || psgi_vec_reserve_(m->ctx, (void **)&m->entries, &m->cap, sizeof *m->entries, n);
}

psgi_map_entry *psgi_map_get_ptr(const psgi_map *m, const void *key) {
  if (!m->nslots) return NULL;
  uint64_t s = m->slots[probe_ptr(m, hash_ptr(key), key)];
  return s ? &m->entries[slot_index(s)] : NULL;
}

psgi_map_entry *psgi_map_get_str(const psgi_map *m, const char *key, size_t len) {
  return find(m, psgi_hash_bytes(key, len), key, len);
}

/* psgi_map_put_ptr when the slot table or the entry array must grow first
 * (kept out of line: the common path then needs no saved registers). */
__attribute__((noinline)) static psgi_map_entry *put_ptr_growing(psgi_map *m, const void *key, bool *is_new) {
  if ((m->len + 1) * 2 > m->nslots && !grow_slots(m)) return NULL;
  uint64_t h = hash_ptr(key);
  size_t i = probe_ptr(m, h, key);
  uint64_t s = m->slots[i];
  if (is_new) *is_new = !s;
  if (s) return &m->entries[slot_index(s)];
  return insert_at(m, i, h, key, PSGI_PTR_KEY);
}

/* One probe finds the key or the empty slot its new entry takes; with room
 * in both tables the whole find-or-insert is inline here (every walk's memo
 * makes one or more per edge). */
psgi_map_entry *psgi_map_put_ptr(psgi_map *m, const void *key, bool *is_new) {
  if ((m->len + 1) * 2 > m->nslots || m->len == m->cap) return put_ptr_growing(m, key, is_new);
  uint64_t h = hash_ptr(key);
  size_t mask = m->nslots - 1, i = h & mask;
  for (;; i = (i + 1) & mask) {
    uint64_t s = m->slots[i];
    if (!s) break;
    psgi_map_entry *e = &m->entries[slot_index(s)];
    if (slot_tag_is(s, h) && e->key == key && e->key_len == PSGI_PTR_KEY) {
      if (is_new) *is_new = false;
      return e;
    }
  }
  if (is_new) *is_new = true;
  m->slots[i] = slot_of(h, m->len);
  psgi_map_entry *e = &m->entries[m->len++];
  e->key = key;
  e->key_len = PSGI_PTR_KEY;
  e->hash = h;
  e->value = NULL;
  return e;
}

psgi_map_entry *psgi_map_put_str(psgi_map *m, const char *key, size_t len, bool *is_new) {
  return put(m, psgi_hash_bytes(key, len), key, len, is_new);
}

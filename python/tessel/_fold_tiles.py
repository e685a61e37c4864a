"""A call's default tile and schedule of a blocked region fold (attention's online softmax over the keys),
from facts the compiler exports (seed 003: the heuristic default reads facts of the call, the tuner's
cache overrides it):

- `<kernel>_FOLD_TILES(p, _v, _c)`: the tiles the walk of the program at group coordinates `_c` steps
  through, where that varies with the program (a range narrowed per block, pgpu-narrow-fold-ranges:
  a causal triangle, a sliding window's band), with `<kernel>_FOLD_AXES` and `<kernel>_GROUP_EXTENTS`;
  None where the walk's length is unknown (a runtime window width): the rule then keeps the defaults;
  absent, the fold's tile count (`<kernel>_PROGRAMS` with FOLD_SPLIT past any count, which the kernel
  caps at the tiles);
- `<kernel>_PROGRAMS`, `<kernel>_PRUNE` (the resource model), `<kernel>_WARPS`, `<kernel>_COVERS` (the
  head size: the contraction's K extent a block covers), and whether GLUON (a warp-specialized spelling)
  is declared.

The rule (`choose`), from the H200 sweep of session 23 (lab/results/2026-12-04-h200-attention-session23-
{a,b}.json, bf16 and f16, TFLOP/s at the declared 64/64/4/2 Gluon defaults against the swept best):
1. The fold's two tiles (the program axis's and the walk's) take the largest common square candidate
   whose WARPS (the kernel's rule) stays within two warpgroups (8 warps: the Gluon spelling's consumers)
   and whose binding the resource model admits (128: 256 needs 16 warps and more shared memory than
   sm_90 has), at the declared STAGES or the deepest admitted below, where
   a. the launch has a warp-specialized spelling (GLUON declared on by default: the bias form without one ran its
      declared 128/64/8/3 Triton binding at 384 against 325 at 128/128/8/2);
   b. the program axis has rows for the larger tile (its program count falls: decode's one query row
      keeps its tiles and its fold split, pgpu-split-folds);
   c. the launch at the larger tile still has a program for every multiprocessor (B1 H4 S4099 D96:
      132 programs on 132, 199 against 189);
   d. a program walks at least MIN_WALK_TILES tiles on average at the larger tile (full D64 S1024 walks
      8: 333 against 289; causal D64 S1024 walks 4.5: 206 paired, 191 unpaired, against 209 at 64/64/4/3
      in the Triton spelling; a W=256 window walks 2.9: 124 against 221 at the defaults; causal D128
      S4096 walks 16.5: 591 against 507, S16384 64.5: 709 against 584, full 691/655 against 576/539).
   Where the walk's length varies across programs by PAIR_IMBALANCE or more (a triangle, not a band)
   and the launch has more than PAIR_PROGRAMS_PER_SM programs a multiprocessor, PAIR_BLOCKS (declared
   where the fold narrows along a program axis) is 2 while the average walk is at most PAIR_WALK_TILES
   (S4096 walks 16.5: paired 591 against 586 bf16, 584 against 561 f16, grouped-query 608 against 594;
   S16384 walks 64.5: paired 679 against 709 unpaired), else 1; at most one program a multiprocessor it
   is 1 (D96's 132 programs: 188 paired, half the multiprocessors idle, against 199); in between 2, as
   PAIR_BLOCKS's own call default (`Kernel._pair_blocks`, session 11).
2. Where only 1d failed (the walk is short), at a head size of at most SHORT_HEAD (64), the Triton
   spelling (GLUON=0) with a pipeline of PIPELINED_STAGES (3) where the resource model admits it (causal
   D64 S1024: 209 against 198 at the Gluon defaults; each tile's two MMAs are 64 deep there, and the
   Gluon spelling's per-tile hand-offs between loader and consumers are the likely cost, not isolated);
   at larger head sizes the declared defaults stay (the window: 221 at 64/64/4/2 Gluon against 165 at
   64/64/4/3 Triton). Decode, where 1b fails, keeps its declared tiles.
3. Where the walk's tile holds the whole row at this call (its parameter covers the walked extent,
   pgpu-stage-folds: ViT's 197 keys in one 256 tile), the program is straight-line code with no walk to
   pipeline: the Triton spelling (GLUON=0), the tiles as the covering rule bound them (not yet measured
   against the Gluon spelling; its consumers' 128-register cap would spill a [64, 256] f32 score tile).
"""
from __future__ import annotations

# 1d: the least average walk (tiles a program) for the larger tile.
MIN_WALK_TILES = 8
# 1: the most warps the larger tile may need (two warpgroups of four).
MAX_WARPS = 8
# 1: pairing where the longest walk is at least this multiple of the average (a triangle: 2; a band: 1).
PAIR_IMBALANCE = 1.5
# 1: pairing on a launch of many waves while the average walk is at most this many tiles.
PAIR_WALK_TILES = 32
PAIR_PROGRAMS_PER_SM = 4
# 2: head sizes up to this take the Triton spelling at this pipeline depth.
SHORT_HEAD = 64
PIPELINED_STAGES = 3
# The rows of a Hopper warpgroup MMA (wgmma m64): a covering row's call default narrows another tile
# under it only where no shallower pipeline fits (`narrow_beside`).
MMA_TILE = 64
# `Facts.fold_tiles` where the module spells no `<kernel>_FOLD_TILES`: every program walks the same tiles.
UNIFORM = "uniform"
# Walks enumerated at most (program coordinates the walk reads, sampled evenly past this).
SAMPLES = 4096


class Facts:
    """What the rule reads of one specialization and call (all from the generated module)."""

    def __init__(self, space, programs, views, sms, prune=None, warps=None, fold_tiles=UNIFORM, fold_axes=(),
                 group_extents=None, head=None, elementwise_only=(), covers=None, sizes=(), held=()):
        self.space, self.programs, self.views, self.sms = space, programs, views, sms
        self.prune, self.warps = prune, warps
        self.fold_tiles, self.fold_axes, self.group_extents = fold_tiles, tuple(fold_axes), group_extents
        self.head, self.elementwise_only, self.covers, self.sizes = head, tuple(elementwise_only), covers or {}, sizes
        # The covering parameters some candidate of which holds their symbol at this call.
        self.held = frozenset(held)

    def count(self, binding):
        try:
            n = self.programs(binding, self.views)
        except Exception:  # a view without a shape, an extent the expression divides by
            return None
        return n if isinstance(n, int) else None

    def walk(self, binding):
        """(average, longest) tiles a program's walk steps through at `binding` (FOLD_SPLIT and PAIR_BLOCKS
        at 1), or None."""
        at = {**binding, "FOLD_SPLIT": 1, **({"PAIR_BLOCKS": 1} if "PAIR_BLOCKS" in self.space else {})}
        if self.fold_tiles is None:  # the module says the walk's length is unknown (a runtime width)
            return None
        if self.fold_tiles is UNIFORM or self.group_extents is None:
            # A walk that does not vary with the program: the fold's tile count, which FOLD_SPLIT past any
            # count reaches (the kernel caps the split at it).
            one, every = self.count(at), self.count({**at, "FOLD_SPLIT": 1 << 30})
            if not one or not every or every % one:
                return None
            return every // one, every // one
        try:
            extents = self.group_extents(at, self.views)
            ranges = [range(extents[a]) if a in self.fold_axes else range(min(extents[a], 1))
                      for a in range(len(extents))]
            total = 1
            for r in ranges:
                total *= len(r)
            if total == 0:
                return None
            stride = max(1, -(-total // SAMPLES))
            tiles = []
            for flat in range(0, total, stride):
                c, rest = [], flat
                for r in reversed(ranges):
                    c.append(rest % len(r))
                    rest //= len(r)
                tiles.append(self.fold_tiles(at, self.views, tuple(reversed(c))))
        except Exception:  # an expression over an empty extent
            return None
        return sum(tiles) / len(tiles), max(tiles)

    def tiles(self, binding):
        """(program tile, walk tile): the declared sizes that change, one the launch's program count and
        not the walk, the other the walk and not the program count; None unless exactly one of each."""
        program, walked = [], []
        base = self.walk(binding)
        for p in self.sizes:
            if p not in self.space or p in self.held or p in self.elementwise_only:
                continue
            smaller = [c for c in self.space[p][0] if c < binding[p]]
            if not smaller:
                continue
            at = {**binding, p: max(smaller)}
            more_programs = (self.count(at) or 0) > (self.count(binding) or 0)
            longer = base is not None and (self.walk(at) or (0, 0))[0] > base[0]
            if more_programs and not longer and p not in self.covers:
                program.append(p)
            elif longer and not more_programs:  # a walk tile whose cover no candidate holds here: T > 256
                walked.append(p)
        return (program[0], walked[0]) if len(program) == 1 and len(walked) == 1 else None

    def row_tile(self, binding):
        """The walk's tile where it holds the whole walked row at this call (a covering parameter that
        holds its symbol, the walk one tile: pgpu-stage-folds' single-segment path), else None."""
        if self.range_tiles(binding) != 1:
            return None
        for p in self.held:
            if p in self.space and p not in self.elementwise_only and p in self.sizes:
                smaller = [c for c in self.space[p][0] if c < binding[p]]
                if smaller and (self.range_tiles({**binding, p: max(smaller)}) or 0) > 1:
                    return p
        return None

    def range_tiles(self, binding):
        """The tiles of the fold's whole range (before any narrowing; FOLD_SPLIT past any count, which the
        kernel caps at them), or None: every walk takes at most that many, a runtime mask's too."""
        at = {**binding, **({"PAIR_BLOCKS": 1} if "PAIR_BLOCKS" in self.space else {})}
        one, every = self.count({**at, "FOLD_SPLIT": 1}), self.count({**at, "FOLD_SPLIT": 1 << 30})
        return every // one if one and every and every % one == 0 else None

    def admitted(self, binding):
        return self.prune is None or self.prune(binding) is None


def choose(facts: Facts, binding: dict) -> dict:
    """The moves of the rule above from `binding` (the declared defaults with the covering ones): {} where
    nothing moves."""
    space = facts.space
    # 1a: GLUON declared off by default (a tile read beside the streams with pointers, unmeasured) is no
    # warp-specialized spelling for this rule: the declared Triton binding stands.
    if "GLUON" not in space or space["GLUON"][1] == 0 or binding.get("FOLD_SPLIT", 1) != 1:
        return {}
    if facts.row_tile(binding) is not None:
        # 3. A row in one tile runs straight-line (no walk for a loader warp to feed): the Triton spelling.
        return {"GLUON": 0} if binding.get("GLUON") != 0 and 0 in space["GLUON"][0] else {}
    tiles = facts.tiles(binding)
    if tiles is None:
        return {}
    program, walked = tiles
    now, walk = facts.count(binding), facts.walk(binding)
    if not now or walk is None:
        return {}
    common = sorted(set(space[program][0]) & set(space[walked][0]), reverse=True)
    short = False  # 1b and 1c held at the larger tile, 1d did not: the walk is short
    for tile in common:
        if tile <= max(binding[program], binding[walked]):
            break
        at = {**binding, program: tile, walked: tile}
        if facts.warps is not None and "WARPS" in space:
            at["WARPS"] = facts.warps(at)
            if at["WARPS"] > MAX_WARPS or at["WARPS"] not in space["WARPS"][0]:
                continue
        if "STAGES" in space:
            depths = [s for s in space["STAGES"][0] if 2 <= s <= binding["STAGES"]]
            fit = [s for s in sorted(depths, reverse=True) if facts.admitted({**at, "STAGES": s})]
            if not fit:
                continue
            at["STAGES"] = fit[0]
        elif not facts.admitted(at):
            continue
        count, larger = facts.count(at), facts.walk(at)
        if not count or larger is None:
            continue
        if count >= now or count < facts.sms:
            break  # 1b or 1c fails at the largest admitted tile: the declared tiles stay
        if larger[0] < MIN_WALK_TILES:
            short = True  # 1d: nor a longer walk
            break
        out = {p: v for p, v in at.items() if binding.get(p) != v}
        if "PAIR_BLOCKS" in space:
            out["PAIR_BLOCKS"] = _paired(facts, count, larger)
        return out
    if short and facts.head is not None and facts.head <= SHORT_HEAD and "STAGES" in space and \
            PIPELINED_STAGES in space["STAGES"][0] and 0 in space["GLUON"][0]:
        at = {**binding, "GLUON": 0, "STAGES": PIPELINED_STAGES}
        if facts.admitted(at):
            return {p: v for p, v in at.items() if binding.get(p) != v}
    return {}


def _paired(facts: Facts, count: int, walk) -> int:
    """PAIR_BLOCKS at the larger tile (1 above)."""
    if count <= facts.sms:
        return 1
    if count <= PAIR_PROGRAMS_PER_SM * facts.sms:
        return 2
    average, longest = walk
    return 2 if longest >= PAIR_IMBALANCE * average and average <= PAIR_WALK_TILES else 1


# A product's row held in one tile (pgpu-stage-folds): the narrowing a covering BLOCK_N's call default
# takes where it exceeds the resource model (`Kernel._fact_params`).
def narrow_beside(space: dict, covers: dict, symbols: dict, chosen: dict, param: str, pick: int, spills,
                   sizes) -> dict | None:
    """{size: narrower candidate} that lets `param`'s covering candidate `pick` fit the registers
    where it spills at the other sizes' bindings (the resource model's fact, `<kernel>_PRUNE`: a
    64x256 f32 accumulator is 129 registers a thread at 4 warps, a 32x256 one 64; `spills` tells
    any limit, shared memory too). The sizes that may narrow are the others that hold no symbol at
    this call: a program's row tile (BLOCK_M beside the [BLOCK_M, BLOCK_N] tile of a product whose
    row BLOCK_N holds), or a tile whose cover no candidate reaches (BLOCK_K of a K longer than every
    block: the branch it sizes does not run), then the pipeline's depth (STAGES). Each step takes
    the first of them whose next smaller candidate fits, preferring one that keeps the tiles at
    MMA_TILE and the pipeline at PIPELINED_STAGES or more, else (shared memory) the pipeline down to
    PIPELINED_STAGES, else narrows the widest size (STAGES last). `spills` returns the limit a binding
    exceeds (`<kernel>_PRUNE`'s reason) or None. None where nothing fits: the covering tile then
    narrows instead."""
    def holds(p):
        n = symbols.get(covers.get(p))
        return n is not None and any(c >= n for c in space[p][0])

    movable = [p for p in sizes or () if p != param and p != "ROWS" and p in space and not holds(p)]
    movable += ["STAGES"] if "STAGES" in space else []
    at, out = {**chosen, param: pick}, {}
    while spills(at):
        steps = [(p, max(c for c in space[p][0] if c < at.get(p, space[p][1]))) for p in movable
                 if any(c < at.get(p, space[p][1]) for c in space[p][0])]
        if not steps:
            return None
        fit = [(p, c) for p, c in steps if not spills({**at, p: c})]
        # A step that keeps every tile at MMA_TILE or more and the pipeline at PIPELINED_STAGES or more
        # goes first: under 64 rows a product leaves the warpgroup MMA (Triton spells mma.sync), while a
        # pipeline of 5 or 3 stages instead of 6 keeps it (176's 32x256 tile at 6 stages: 0.49x of
        # torch.compile on the H100; 64x256 at 5 stages is a wgmma m64n256 tile).
        kept = [(p, c) for p, c in fit if c >= (PIPELINED_STAGES if p == "STAGES" else MMA_TILE)]
        fit = kept or fit
        # Where no single step fits shared memory, the pipeline gives up its depth down to PIPELINED_STAGES
        # before a tile narrows (176: 128x256x64 at 4 stages and 8 warps, 255 registers a thread and no
        # spill in sm_90a's ptxas; 64x256 at 4 warps spills 136 bytes a thread).
        deeper = [(p, c) for p, c in steps if p == "STAGES" and c >= PIPELINED_STAGES]
        if not fit and deeper and spills(at) == "shared memory":
            fit = deeper
        p, c = fit[0] if fit else max(steps, key=lambda s: (s[0] != "STAGES", at.get(s[0], space[s[0]][1])))
        at[p] = out[p] = c
    return out

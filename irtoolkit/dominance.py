"""SSA dominance: every use of a value must be dominated by its definition.

xDSL 0.74 does not check this. Blocks of one region get dominators by the
Cooper-Harvey-Kennedy algorithm, then a pre/post numbering of the dominator
tree answers queries in O(1); positions of ops in a block are numbered once.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue


class _RegionDominance:
    def __init__(self, region: Region):
        blocks = list(region.blocks)
        entry = blocks[0]
        succs = {b: (list(b.last_op.successors) if b.last_op is not None else []) for b in blocks}
        # reverse post-order from the entry (iterative DFS)
        order: list[Block] = []
        seen = {entry}
        stack = [(entry, iter(succs[entry]))]
        while stack:
            block, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                order.append(block)
                stack.pop()
            elif nxt not in seen and nxt in succs:
                seen.add(nxt)
                stack.append((nxt, iter(succs[nxt])))
        order.reverse()
        rpo = {b: i for i, b in enumerate(order)}
        preds: dict[Block, list[Block]] = {b: [] for b in order}
        for b in order:
            for s in succs[b]:
                if s in preds:
                    preds[s].append(b)
        idom: dict[Block, Block] = {entry: entry}

        def intersect(a: Block, b: Block) -> Block:
            while a is not b:
                while rpo[a] > rpo[b]:
                    a = idom[a]
                while rpo[b] > rpo[a]:
                    b = idom[b]
            return a

        changed = True
        while changed:
            changed = False
            for b in order[1:]:
                new = None
                for p in preds[b]:
                    if p in idom:
                        new = p if new is None else intersect(p, new)
                if new is not None and idom.get(b) is not new:
                    idom[b] = new
                    changed = True
        # number the dominator tree
        children: dict[Block, list[Block]] = {b: [] for b in order}
        for b, d in idom.items():
            if b is not entry:
                children[d].append(b)
        self._pre: dict[Block, int] = {}
        self._post: dict[Block, int] = {}
        counter = 0
        walk = [(entry, False)]
        while walk:
            block, done = walk.pop()
            if done:
                self._post[block] = counter
                counter += 1
                continue
            self._pre[block] = counter
            counter += 1
            walk.append((block, True))
            walk.extend((c, False) for c in children[block])

    def dominates(self, a: Block, b: Block) -> bool:
        """Block ``a`` dominates ``b``; unreachable blocks are dominated by everything."""
        if b not in self._pre:
            return True
        if a not in self._pre:
            return False
        return self._pre[a] <= self._pre[b] and self._post[b] <= self._post[a]


class DominanceChecker:
    """Answers "does the definition of this value dominate this use?" for one module."""

    def __init__(self) -> None:
        self._positions: dict[Block, dict[Operation, int]] = {}
        self._regions: dict[Region, _RegionDominance] = {}

    def _position(self, op: Operation) -> int:
        block = op.parent
        table = self._positions.get(block)
        if table is None:
            table = self._positions[block] = {o: i for i, o in enumerate(block.ops)}
        return table[op]

    def _block_dominates(self, a: Block, b: Block) -> bool:
        region = a.parent
        if region.first_block is a:  # the entry block dominates its whole region
            return True
        info = self._regions.get(region)
        if info is None:
            info = self._regions[region] = _RegionDominance(region)
        return info.dominates(a, b)

    def properly_dominates(self, value: SSAValue, user: Operation) -> bool:
        if isinstance(value, OpResult):
            def_block = value.op.parent
        elif isinstance(value, BlockArgument):
            def_block = value.block
        else:
            return False
        if def_block is None:
            return False
        region = def_block.parent
        # the ancestor of `user` (or `user` itself) in the defining region
        anc = user
        while anc is not None and (anc.parent is None or anc.parent.parent is not region):
            anc = anc.parent_op()
        if anc is None:
            return False
        use_block = anc.parent
        if use_block is def_block:
            if isinstance(value, BlockArgument):
                return True
            return value.op is not anc and self._position(value.op) < self._position(anc)
        return self._block_dominates(def_block, use_block)

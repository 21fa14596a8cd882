"""Which cluster nodes get blocks, and how many at once: plain bookkeeping, no Ray.

Each node takes as many blocks at once as it has CPUs (a block is one task
holding one CPU: its four bots take turns, only one thinks at a time). A
node that refused the sandbox self-check, or that Ray reports dead, gets no
more work; one that joins later is used from then on. ``cap`` (an explicit
``workers``) bounds the blocks in flight over the whole cluster. ``ahead``
more blocks per node wait in Ray's queue there, so a CPU that finishes a
block starts the next at once instead of waiting for the driver to store
the result and send another. ``per_cpu`` blocks share a CPU where one worker
process plays several at once in threads (a fixed tempo: its games mostly wait).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Node:
    id: str
    address: str
    slots: int
    busy: int = 0
    refused: str | None = None  # why it cannot hold the sandbox
    alive: bool = True

    @property
    def usable(self) -> bool:
        return self.alive and self.refused is None and self.slots > 0

    @property
    def label(self) -> str:
        return f"node {self.address} ({self.id[:12]})"


@dataclass(frozen=True)
class NodeInfo:
    """What Ray says about one node."""

    id: str
    address: str
    cpus: int
    alive: bool


class NodePool:
    def __init__(self, cap: int | None = None, ahead: int = 0, per_cpu: int = 1) -> None:
        self.cap = cap
        self.ahead = ahead
        self.per_cpu = max(1, per_cpu)
        self.nodes: dict[str, Node] = {}
        self._seen = False  # after the first view, new nodes are news

    def update(self, infos: list[NodeInfo]) -> list[str]:
        """Take Ray's current view; return one line per change worth telling the user."""
        said: list[str] = []
        for info in infos:
            node = self.nodes.get(info.id)
            if node is None:
                if not info.alive:
                    continue
                node = self.nodes[info.id] = Node(info.id, info.address, max(0, info.cpus))
                if self._seen:
                    said.append(f"{node.label} joined with {node.slots} CPUs")
                continue
            node.slots = max(0, info.cpus)
            if node.alive and not info.alive:
                node.alive = False
                said.append(f"{node.label} was lost; its blocks are played again elsewhere")
        self._seen = True
        return said

    def refuse(self, node_id: str, why: str) -> str | None:
        """Mark the node unfit; the line to tell the user, once per node."""
        node = self.nodes.get(node_id)
        if node is None or node.refused is not None:
            return None
        node.refused = why
        left = len(self.usable)
        return f"{node.label} refused: {why}; no more blocks go there ({left} usable node{'s' * (left != 1)} left)"

    def lost(self, node_id: str) -> None:
        node = self.nodes.get(node_id)
        if node is not None:
            node.alive = False

    @property
    def usable(self) -> list[Node]:
        return [n for n in self.nodes.values() if n.usable]

    def room(self, n: Node) -> int:
        return n.slots * self.per_cpu + self.ahead if n.usable else 0

    @property
    def capacity(self) -> int:
        """Blocks worth having in flight now."""
        total = sum(self.room(n) for n in self.usable)
        return min(total, self.cap) if self.cap is not None else total

    def take(self) -> Node | None:
        """The usable node with the most free room (ties: the first known), marked busy; None if all are full."""
        if sum(n.busy for n in self.usable) >= self.capacity:
            return None
        best: Node | None = None
        for n in self.usable:
            if n.busy < self.room(n) and (best is None or self.room(n) - n.busy > self.room(best) - best.busy):
                best = n
        if best is not None:
            best.busy += 1
        return best

    def give_back(self, node_id: str) -> None:
        node = self.nodes.get(node_id)
        if node is not None and node.busy > 0:
            node.busy -= 1

    def why_none(self) -> str:
        """Why no node can take work (for the error that ends the run)."""
        if not self.nodes:
            return "the Ray cluster has no nodes with CPUs"
        parts = []
        for n in self.nodes.values():
            state = "lost" if not n.alive else f"refused: {n.refused}" if n.refused else "no CPUs" if not n.slots else "usable"
            parts.append(f"{n.label}: {state}")
        return "no node of the Ray cluster can play blocks (" + "; ".join(parts) + ")"

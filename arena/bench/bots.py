"""``arena bench bots``: how much stronger each baseline bot is than the next.

Plays in-process duplicate blocks (same deal key twice, partnerships
swapped, fresh bot objects and per-game seeds) of montecarlo vs heuristic
and heuristic vs random, and reports each pairing's score rate with an
Elo-difference estimate and a rough 95% interval. Duplicate blocks cancel
most of the luck of the cards, which is what lets a few dozen games show
the margins. The last line printed is one JSON object.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from arena._json import JsonObject
from arena.match.block import rotation_seating
from arena.match.keys import bot_seed, child_key
from arena.match.game import play_game
from arena.match.settings import MatchSettings
from arena.players.policy import PolicyPlayer

BOTS_DIR = Path(__file__).resolve().parents[2] / "bots"


def load_bot_class(name: str, bots_dir: Path = BOTS_DIR) -> type:
    """Import ``bots/<name>/bot.py`` and return its ``Bot`` subclass.

    The SDK folder goes on ``sys.path`` exactly as the harness's ``sdk``
    library would, so the in-process bot runs the same code as the process.
    """
    sdk = str(bots_dir / "sdk")
    if sdk not in sys.path:
        sys.path.insert(0, sdk)
    path = bots_dir / name / "bot.py"
    spec = importlib.util.spec_from_file_location(f"arena_bench_bot_{name.replace('-', '_')}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load bot {name!r} from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from cinch_bot import Bot

    classes = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, Bot) and v is not Bot and v.__module__ == module.__name__]
    if len(classes) != 1:
        raise ImportError(f"{path}: expected exactly one Bot subclass, found {len(classes)}")
    return classes[0]


def elo(rate: float) -> float | None:
    """Elo difference for an expected score ``rate``; None at 0 or 1, where it has no finite value."""
    if not 0.0 < rate < 1.0:
        return None
    return -400.0 * math.log10(1.0 / rate - 1.0)


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 1)


def elo_text(rate: float, e: float | None, lo: float | None, hi: float | None) -> str:
    """The Elo estimate and its 95% interval as a person reads them. An interval end
    at a score of 0 or 1 is unbounded; a perfect (or nil) record has no finite estimate."""
    def end(x: float | None, inf: str) -> str:
        return inf if x is None else f"{x:+.0f}"

    if e is None:
        return f"Elo not finite (a {'perfect' if rate >= 1 else 'nil'} record; 95% {end(lo, '-inf')} to {end(hi, '+inf')})"
    return f"Elo {e:+.0f} [{end(lo, '-inf')}, {end(hi, '+inf')}]"


def wilson(rate: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a rate observed over ``n`` games."""
    denom = 1 + z * z / n
    centre = (rate + z * z / (2 * n)) / denom
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(xs: list[float], z: float = 1.96) -> list[float] | None:
    """The normal 95% interval of the mean of ``xs`` (one per duplicate block); None for fewer
    than two blocks. Identical blocks give a zero-width interval, as the data say."""
    n = len(xs)
    if n < 2:
        return None
    mean = sum(xs) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1) / n)
    return [round(mean - z * se, 2), round(mean + z * se, 2)]


class DuplicateFigures(TypedDict):
    """A's results over the duplicate blocks of A-pair vs B-pair (``duplicate_match``)."""

    blocks: int
    games: int
    score_rate: float
    score_rate_95: list[float]
    elo: float | None  # null for a perfect (or nil) record: no finite value
    elo_95: list[float | None]  # null: that end is unbounded
    mean_final_score_diff: float
    score_diff_95: list[float] | None  # the mean over blocks' 95% interval (normal); none from one block
    unfinished_games: int
    wall_s: NotRequired[float]  # ``run``'s, measured around it


class RotationFigures(TypedDict):
    """Per entrant of a table's rotation (``rotation_match``): its mean final score and win rate, and what
    the rotation buys (``ratings.luck.rotation_gain``, as JSON)."""

    blocks: int
    games: int
    mean_final_score: list[float]
    win_rate: list[float]
    gain_final_score: JsonObject
    gain_win: JsonObject


class BotsBench(TypedDict):
    """``arena bench bots``'s last line."""

    bench: str
    blocks: int
    profile: str
    pairings: dict[str, DuplicateFigures]  # "A-vs-B"


def duplicate_match(
    make_a: Callable[[], Any], make_b: Callable[[], Any], blocks: int, key: str, settings: MatchSettings
) -> DuplicateFigures:
    """Play ``blocks`` duplicate blocks of A-pair vs B-pair; summarise A's results."""
    block_scores: list[float] = []
    points_diff: list[float] = []
    block_diffs: list[float] = []  # per block, A's mean final score difference over its two games
    unfinished = 0
    for b in range(blocks):
        bkey = child_key(key, b)
        total = 0.0
        for half in (0, 1):
            # Half 0: A at seats 0+2 (side 0); half 1: A at seats 1+3 (side 1).
            makers = [make_a, make_b, make_a, make_b] if half == 0 else [make_b, make_a, make_b, make_a]
            players = [PolicyPlayer(makers[s](), bot_seed(bkey, half, s)) for s in range(4)]
            res = play_game(players, settings, bkey)
            side_a = half
            if res.winner is None:
                unfinished += 1
                total += 0.5
            else:
                total += float(res.winner == side_a)
            points_diff.append(res.scores[side_a] - res.scores[1 - side_a])
        block_scores.append(total / 2)
        block_diffs.append((points_diff[-1] + points_diff[-2]) / 2)
    n = len(block_scores)
    mean = sum(block_scores) / n
    var = sum((x - mean) ** 2 for x in block_scores) / max(1, n - 1)
    se = math.sqrt(var / n) if n > 1 else 0.5
    lo, hi = max(0.0, mean - 1.96 * se), min(1.0, mean + 1.96 * se)
    # At a perfect (or zero) score the block variance is 0; the Wilson interval
    # over games keeps the range honest there, so take the wider of the two.
    wlo, whi = wilson(mean, 2 * n)
    lo, hi = min(lo, wlo), max(hi, whi)
    return {
        "blocks": n,
        "games": 2 * n,
        "score_rate": round(mean, 4),
        "score_rate_95": [round(lo, 4), round(hi, 4)],
        "elo": _round(elo(mean)),  # null for a perfect (or nil) record: no finite value
        "elo_95": [_round(elo(lo)), _round(elo(hi))],  # null: that end is unbounded
        "mean_final_score_diff": round(sum(points_diff) / len(points_diff), 2),
        # 95% interval of the mean over blocks (normal); None from one block, which has no spread to read
        "score_diff_95": mean_interval(block_diffs),
        "unfinished_games": unfinished,
    }


def rotation_match(makers: list[Callable[[], Any]], blocks: int, key: str, settings: MatchSettings) -> RotationFigures:
    """Duplicate by rotation at a table of n seats (n = ``len(makers)``, the profile's seats):
    each block plays one deal key n times, the entrants rotated through the seats; per entrant
    its mean final score and win rate, and what the rotation buys (``rotation_gain``)."""
    from arena.ratings.luck import rotation_gain

    n = len(makers)
    scores: list[list[list[float]]] = []
    wins: list[list[list[float]]] = []
    for b in range(blocks):
        bkey = child_key(key, b)
        sc = [[0.0] * n for _ in range(n)]
        wn = [[0.0] * n for _ in range(n)]
        for r in range(n):
            seating = rotation_seating(n, r)
            players = [PolicyPlayer(makers[seating[s]](), bot_seed(bkey, r, s)) for s in range(n)]
            res = play_game(players, settings, bkey)
            for s, e in enumerate(seating):
                sc[e][r] = float(res.scores[s])
                wn[e][r] = 1.0 if res.winner == s else (1.0 / n if res.winner is None else 0.0)
        scores.append(sc)
        wins.append(wn)
    games = blocks * n
    return {
        "blocks": blocks, "games": games,
        "mean_final_score": [round(sum(sum(blk[e]) for blk in scores) / games, 2) for e in range(n)],
        "win_rate": [round(sum(sum(blk[e]) for blk in wins) / games, 4) for e in range(n)],
        "gain_final_score": rotation_gain(scores, "final_score").to_dict(),
        "gain_win": rotation_gain(wins, "win").to_dict(),
    }


PAIRINGS = (("montecarlo", "heuristic"), ("heuristic", "random"))


def run(args: Any) -> int:
    """Measure with the options ``arena bench bots`` parsed; print a summary, then one JSON line."""
    pairings = [tuple(p.split(":", 1)) for p in args.pairing] if args.pairing else list(PAIRINGS)
    settings = MatchSettings(profile=getattr(args, "profile", "pagat62"))
    out: BotsBench = {"bench": "bots", "blocks": args.blocks, "profile": settings.profile.name, "pairings": {}}
    for a, b in pairings:
        ca, cb = load_bot_class(a), load_bot_class(b)
        t0 = time.perf_counter()
        r = duplicate_match(ca, cb, args.blocks, f"{args.key}|{a}|{b}", settings)
        r["wall_s"] = round(time.perf_counter() - t0, 1)
        out["pairings"][f"{a}-vs-{b}"] = r
        lo, hi = r["elo_95"]
        di = r["score_diff_95"]
        diff95 = f" (95% {di[0]:+.1f} to {di[1]:+.1f})" if di else " (one block: no interval)"
        print(
            f"{a} vs {b} ({settings.profile.name}): score rate {r['score_rate']:.3f} over {r['games']} games"
            f" (95% {r['score_rate_95'][0]:.3f}-{r['score_rate_95'][1]:.3f}),"
            f" {elo_text(r['score_rate'], r['elo'], lo, hi)}, mean final score diff {r['mean_final_score_diff']:+.1f}"
            f"{diff95}, {r['wall_s']} s",
            flush=True,
        )
    print(json.dumps(out, sort_keys=True))
    return 0


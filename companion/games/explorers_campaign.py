"""Explorers of the Woodlands, Campaign Mode: the five chapters and the campaign record.

Pure rules, no I/O. Two halves:
- the chapter rules played on an Explorers table (`state["chapter"]`, counters in
  `state["quest"]`), called from the game module's actions;
- the campaign record carried from one evening to the next: Heroes and their seats, unlocked
  Powers and Loot, Enraged Monster types, each chapter's attempts and result, the state each
  chapter starts from, and The Forest Awakens draws.

Rulings where the rulebook leaves a gap:
- Chapter targets "by player count" count Heroes: a solo player runs two Heroes and plays as
  two players (15 orbs in chapter 2, 10 Monsters in chapter 3).
- Chapter 1: the rulebook does not name the three mushroom colours; the phones call them
  colour A, B and C. Ingredients are counted for the whole party; who carries which marker
  stays on the table. The 2 orbs of a potion are paid by the Hero who concocts it.
- Chapter 2: the Orb markers' own orbs count at the Energy Well with the Heroes' orbs; the
  players say how many orbs each Hero pays and the Orb markers pay the rest (the orbs left
  are kept, so who pays decides what each Hero carries on).
- Chapters 3 and 4 are played on a fixed layout: there is no Forest Growth phase, every round
  is an Adventure phase.
- Chapter 1 and 2: the Lair tiles are left out and the rulebook does not say how many there
  are, so the stack's number is the most it can hold; the players count theirs, and before the
  first tile is drawn their count is the stack the app counts from.
- Chapter 1: a correction taking the potions back under 2 takes back the ambush it placed, so
  the real second potion brings it again (undo stays the exact way back).
- Chapter 3: at the end of round 5 the app reveals the Boss if no undefeated Boss is on its
  tile (none came yet, or the first was beaten): a second Boss is played like the first.
- Campaign Loot is never lost by the order of taps: a Loot pile due (chapter 4) or a Boss's
  chest cards (chapter 3 or 4) are taken after the chapter's end too, until the players
  confirm it, and the end is confirmed only once they are taken.
- Chapter 4: the Loot piles are dealt by the app (the cards are named on the phones). A pile is
  due each time a revealed campsite is emptied (each campsite pays once); the active Hero
  equips the whole pile, and past the 3 slots each card replaces one the players name, which
  is discarded. A burnt camp keeps the pile's first card: the piles were shuffled when dealt.
  Once 3 campsites were empty at the same time the chapter is won: playing on for the 4th,
  neither a correction nor a knock-down takes the victory back (undo does).
- Chapter 5: the 4 totems active and no revealed Boss left undefeated ("no bosses remain in the
  forest"); a Boss tile still in the Forest stack is not in the forest, so no Boss need have
  come out. The Bosses in the forest are a counter the players correct. Corruption markers on tiles and on empty spaces are counted apart:
  the tiles set the effect band, both empty the reserve of 10 (empty = lost). The Boss tile's
  Boss is revealed once: after its defeat an empty stack reveals nothing.
- A chapter played as a single non-campaign game: every Hero as in classic mode (chapter 3 at
  full HP, nothing carried), the Enraged Monsters card as chosen, chapter 4's 2 + 1 per Hero
  Loot cards (unnamed: the phones know them by pile), chapter 5 at Corruption level 1.
- The Forest Awakens after a won chapter; a lost chapter Enrages nothing.
- Once every Monster type is Enraged, The Forest Awakens has nothing left to Enrage.
"""

from __future__ import annotations

import copy
import random
import sys

from . import explorers_of_the_woodlands as game
from .base import Rejected
from .words import Text, join_names, t, tc, tn, tnc

CHAPTERS = (1, 2, 3, 4, 5)
CHAPTER_TITLES = {1: tc("chapter title", "Mushrooms for the Elder"),
                  2: tc("chapter title", "Tree of Life (part 1)"),
                  3: tc("chapter title", "Tree of Life (part 2)"),
                  4: tc("chapter title", "Footsteps in the Night"),
                  5: tc("chapter title", "Corruption")}
CHAPTER_GOALS = {
    1: t("Collect the ingredients, concoct 2 potions at the Campfire, then defeat the Monsters "
         "that ambush the Campfire."),
    2: t("Bring the orbs to the Energy Well: every Hero on the Well with enough orbs."),
    3: t("Defend the Energy Well: defeat 1 Boss and enough Monsters (Spirits do not count)."),
    4: t("Recover your equipment: 3 revealed campsites empty of Monsters at the same time."),
    5: t("Activate the 4 purification totems and defeat every Boss in the forest."),
}
# The Monster types in the plural, as The Forest Awakens names them (one message each: a
# language's grammar may differ per type).
MONSTER_PLURALS = {"mushroom": tc("monster type", "Mushrooms"), "plant": tc("monster type", "Plants"),
                   "spirit": tc("monster type", "Spirits"),
                   "skeleton": tc("monster type", "Skeletons"),
                   "snake": tc("monster type", "Snakes")}

MUSHROOM_COLOURS = ("mushroom_a", "mushroom_b", "mushroom_c")
MUSHROOMS_TOTAL = 6
VIALS_TOTAL = 2
POTIONS_NEEDED = 2
POTION_ORBS = 2
ORB_MARKERS = 4
ORBS_NEEDED = {2: 15, 3: 16, 4: 18}
MONSTERS_NEEDED = {2: 10, 3: 12, 4: 15}
CAMPSITES = 4
CAMPSITES_NEEDED = 3
LOOT_PILES = 4
EXTRA_LOOT = t("Extra Loot card (draw one)")
CORRUPTION_MARKERS = 10
TOTEMS = 4
# "Do not use the Lair ... tiles": the rulebook does not say how many there are, at least one.
LAIR_TILES_AT_LEAST = 1

# Chapter 3: what the Monsters do at the end of each round.
SPAWN_TABLE = {
    1: t("The Monsters advance 1 tile toward the Energy Well."),
    2: t("The Monsters advance 2 tiles toward the Energy Well."),
    3: t("Put 2 Monsters on each tile containing a Rune."),
    4: t("The Monsters advance 2 tiles toward the Energy Well."),
    5: t("Put 1 Boss card on the Boss tile if there isn't one there already, and reveal it."),
    6: t("Put 1 Monster on each tile containing a Rune."),
    7: t("The Monsters advance 1 tile toward the Energy Well."),
}
SPAWN_LATER = t("The Monsters advance 1 tile toward the Energy Well. Then put 1 Monster on each "
                "tile containing a Rune.")

COUNTER_LABELS = {
    "mushroom_a": t("Mushrooms, colour A"), "mushroom_b": t("Mushrooms, colour B"),
    "mushroom_c": t("Mushrooms, colour C"), "vials": t("Empty vials"),
    "potions": t("Potions concocted"),
    "campfire_monsters": t("Monsters on the Campfire"),
    "markers_carried": t("Orb markers carried by Monsters"), "markers_lost": t("Orb markers lost"),
    "vortex_monsters": t("Orb Thieves stopped on the Vortex"),
    "campsites_found": t("Campsites revealed"), "campsites_empty": t("Revealed campsites empty"),
    "corrupted": t("Corrupted Forest tiles"),
    "corrupted_spaces": t("Corruption markers on empty spaces"), "totems": t("Totems activated"),
    "bosses_left": t("Bosses in the forest"),
}
# A mushroom colour on its own, as a missing ingredient names it.
MUSHROOM_NAMES = {"mushroom_a": t("colour A"), "mushroom_b": t("colour B"),
                  "mushroom_c": t("colour C")}
CHAPTER_COUNTERS = {
    1: ("mushroom_a", "mushroom_b", "mushroom_c", "vials", "potions", "campfire_monsters"),
    2: ("markers_carried", "markers_lost", "vortex_monsters"),
    3: (),
    4: ("campsites_found", "campsites_empty"),
    5: ("corrupted", "corrupted_spaces", "totems", "bosses_left"),
}
COUNTERS = tuple(COUNTER_LABELS)


# ----------------------------------------------------------------- chapter targets


def party_size(hero_count: int) -> int:
    """Targets are by player count; a solo player's two Heroes play as two players."""
    return max(2, min(4, hero_count))


def orbs_needed(hero_count: int) -> int:
    return ORBS_NEEDED[party_size(hero_count)]


def monsters_needed(hero_count: int) -> int:
    return MONSTERS_NEEDED[party_size(hero_count)]


def spawn_text(round_number: int) -> str:
    return SPAWN_TABLE.get(round_number, SPAWN_LATER)


def corruption_band(corrupted: int) -> dict:
    """The effect of a Corruption marker for the number of corrupted Forest tiles."""
    if corrupted >= CORRUPTION_MARKERS:
        return {"band": "10+", "heroes": t("The game is lost."), "enemies": t("The game is lost.")}
    if corrupted >= 9:
        return {"band": "9", "heroes": t("Discard 1 Loot card when entering the tile; without "
                                         "one the Hero is knocked down!"),
                "enemies": t("+1 Monster appears on the tile.")}
    if corrupted >= 4:
        return {"band": "4-8", "heroes": t("-1 Movement."),
                "enemies": t("+1 shield and additional effect.")}
    if corrupted >= 1:
        return {"band": "1-3", "heroes": t("No effect."), "enemies": t("+1 shield.")}
    return {"band": "0", "heroes": t("No corrupted tile."), "enemies": t("No corrupted tile.")}


def monsters_counted(monsters: dict) -> int:
    """Chapter 3 counts every Monster defeated but the Spirits."""
    return sum(count for kind, count in monsters.items() if kind != "spirit")


# ----------------------------------------------------------------- chapter start (table side)


def check_start(raw, hero_ids: list[str], standalone: bool = False) -> dict:
    """Validate a chapter's starting state handed to a new table; return it cleaned.

    A chapter played as a single game (`standalone`) names no campaign.
    """
    if not isinstance(raw, dict):
        raise Rejected(t("The campaign's starting state is malformed."))
    campaign = raw.get("campaign")
    chapter = raw.get("chapter")
    if standalone:
        if campaign is not None:
            raise Rejected(t("A chapter played alone belongs to no campaign."))
    elif isinstance(campaign, bool) or not isinstance(campaign, int) or campaign < 1:
        raise Rejected(t("The campaign's starting state names no campaign."))
    if chapter not in CHAPTERS or isinstance(chapter, bool):
        raise Rejected(t("Chapters run from 1 to 5."))
    carry = raw.get("carry")
    if not isinstance(carry, dict) or sorted(carry) != sorted(hero_ids):
        raise Rejected(t("The campaign's starting state must list every Hero at the table."))
    clean_carry = {}
    for hero_id, hero in carry.items():
        clean_carry[hero_id] = _check_hero(hero)
    enraged = raw.get("enraged", [])
    if (not isinstance(enraged, list) or any(kind not in game.MONSTERS for kind in enraged)
            or len(set(enraged)) != len(enraged)):
        raise Rejected(t("Enraged Monster types must be among the five types, each once."))
    start = {"campaign": campaign, "chapter": chapter, "carry": clean_carry,
             "enraged": [kind for kind in game.MONSTERS if kind in enraged]}
    if chapter == 4:
        piles = raw.get("piles")
        if (not isinstance(piles, list) or len(piles) != LOOT_PILES
                or any(not isinstance(p, list) or not p or not all(_is_card(c) for c in p)
                       for p in piles)):
            raise Rejected(t("Chapter 4 needs 4 Loot piles of at least one card each."))
        start["piles"] = [list(p) for p in piles]
    if chapter == 5:
        level = raw.get("corruption_level", 1)
        if level not in (1, 2) or isinstance(level, bool):
            raise Rejected(t("Chapter 5 starts at Corruption level 1 or 2."))
        start["corruption_level"] = level
    return start


def standalone_start(chapter: int, hero_ids: list[str], enraged: list[str]) -> dict:
    """A chapter played as a single non-campaign game: the Heroes as in classic mode.

    Every Hero at 5 HP, 0 orbs, no Power and no Loot (chapter 3 at full HP, as nothing is
    carried); chapter 4 deals 2 Loot cards and 1 per player into 4 piles; chapter 5 starts
    at Corruption level 1 (level 2 comes only from a campaign's chapter 4).
    """
    start = {"campaign": None, "chapter": chapter,
             "carry": {hero: {"hp": game.MAX_HP, "orbs": 0, "powers": 0, "loot": []}
                       for hero in hero_ids},
             "enraged": list(enraged)}
    if chapter == 4:
        start["piles"] = standalone_piles(party_size(len(hero_ids)))
    if chapter == 5:
        start["corruption_level"] = 1
    return start


def standalone_piles(players: int) -> list[list[str]]:
    """2 Loot cards and 1 per player in 4 piles as equal as can be (5 cards: 2, 1, 1, 1).

    The cards are drawn face down at the table: the phones know them by pile only.
    """
    sizes = [len(range(i, 2 + players, LOOT_PILES)) for i in range(LOOT_PILES)]
    return [[t("Loot card from pile {pile}", pile=i + 1)] * size for i, size in enumerate(sizes)]


def _is_card(card) -> bool:
    return isinstance(card, str) and 0 < len(card) <= 40


def _check_hero(hero) -> dict:
    if not isinstance(hero, dict):
        raise Rejected(t("A Hero's carried state is malformed."))
    values = {}
    for key, low, high in (("hp", 1, game.MAX_HP), ("orbs", 0, game.MAX_ORBS), ("powers", 0, 2)):
        value = hero.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise Rejected(_carried_range(key, low, high))
        values[key] = value
    loot = hero.get("loot", [])
    if (not isinstance(loot, list) or len(loot) > game.LOOT_SLOTS
            or not all(_is_card(c) for c in loot)):
        raise Rejected(t("A Hero carries at most {slots} named Loot cards.", slots=game.LOOT_SLOTS))
    values["loot"] = list(loot)
    return values


def _carried_range(key: str, low: int, high: int) -> Text:
    if key == "hp":
        return t("A Hero's carried HP must be from {low} to {high}.", low=low, high=high)
    if key == "orbs":
        return t("A Hero's carried orbs must be from {low} to {high}.", low=low, high=high)
    return t("A Hero's carried Powers must be from {low} to {high}.", low=low, high=high)


def has_growth(chapter) -> bool:
    """Chapters 3 and 4 are played on a fixed layout: no Forest Growth."""
    return chapter not in (3, 4)


def has_boss_tile(chapter) -> bool:
    """Chapters 1 and 2 leave the Boss tile in the box."""
    return chapter not in (1, 2)


def quest_start(start: dict, hero_count: int) -> dict:
    chapter = start["chapter"]
    if chapter == 1:
        return {"mushroom_a": 0, "mushroom_b": 0, "mushroom_c": 0, "vials": 0, "potions": 0,
                "campfire_monsters": 0, "ambushed": False, "ambush_placed": 0}
    if chapter == 2:
        return {"markers_carried": 0, "markers_lost": 0, "orbs_needed": orbs_needed(hero_count),
                "vortex_monsters": 0, "teleported": 0}
    if chapter == 3:
        return {"monsters_needed": monsters_needed(hero_count), "boss_defeated": False}
    if chapter == 4:
        return {"campsites_found": 0, "campsites_empty": 0, "goal_reached": False,
                "piles": [list(p) for p in start["piles"]], "recovered": [], "piles_due": 0,
                "dealt": [len(p) for p in start["piles"]]}
    return {"corrupted": 1, "corrupted_spaces": 0, "totems": 0, "bosses_left": 0,
            "bosses_defeated": 0, "boss_tile_revealed": False,
            "corruption_level": start.get("corruption_level", 1)}


# The chapter counters added since the first chapter tables were saved.
ADDED_KEYS = {1: ("ambush_placed",), 2: ("vortex_monsters", "teleported"),
              4: ("piles_due", "dealt"),
              5: ("corrupted_spaces", "boss_tile_revealed")}


def needs_upgrade(state: dict) -> bool:
    keys = ADDED_KEYS.get(state.get("chapter"), ())
    return any(key not in state["quest"] for key in keys)


def upgrade_quest(state: dict) -> None:
    """Fill in the counters a chapter table saved by an earlier version lacks."""
    if state.get("chapter") == 1:
        quest = state["quest"]
        quest.setdefault("ambush_placed", 1 + len(state["heroes"]) if quest["ambushed"] else 0)
    if state.get("chapter") == 2:
        state["quest"].setdefault("vortex_monsters", 0)
        state["quest"].setdefault("teleported", 0)
    if state.get("chapter") == 4:
        quest = state["quest"]
        quest.setdefault("piles_due", max(0, quest["campsites_empty"] - len(quest["recovered"])))
        quest.setdefault("dealt", [len(p) for p in quest["piles"]])
    if state.get("chapter") == 5:
        quest = state["quest"]
        quest.setdefault("corrupted_spaces", 0)
        quest.setdefault("boss_tile_revealed", quest["bosses_defeated"] > 0
                         or state["boss"]["revealed"])


def corruption_reserve(quest: dict) -> int:
    """Markers left in the reserve: every marker on a tile or an empty space came from it."""
    return CORRUPTION_MARKERS - quest["corrupted"] - quest["corrupted_spaces"]


def chapter_stack(chapter: int) -> int:
    """Forest tiles in the stack at the start of a chapter (the players correct it if needed)."""
    if chapter == 1:
        # No Boss, Peddler or Energy Well tile, and at least one Lair tile out: the most the
        # stack can hold; the players' own count replaces it.
        return game.STACK_TILES - 3 - LAIR_TILES_AT_LEAST
    if chapter == 2:
        return game.STACK_TILES - 1 - LAIR_TILES_AT_LEAST  # no Boss tile, no Lair tile
    if chapter in (3, 4):
        return 0
    return game.STACK_TILES - 2  # the three starting tiles are laid out, the Start among them


def _listed(items: list, separator: str = ", ") -> Text | str:
    """Items said one after another, each in the phone's language: "A, B, C" or "A; B"."""
    if not items:
        return ""
    said = items[0]
    for item in items[1:]:
        said = (tc("list separator", "{first}; {then}", first=said, then=item) if separator == "; "
                else tc("list separator", "{first}, {then}", first=said, then=item))
    return said


def _carried_line(hero: dict) -> Text:
    """One Hero's carried state, as a chapter's setup says it."""
    values = {"hero": game.hero_label(hero["id"]), "hp": hero["hp"], "orbs": hero["orbs"]}
    if hero["loot"]:
        return tn("{hero}: {hp} HP, {orbs} orbs, {count} Power, Loot: {loot}",
                  "{hero}: {hp} HP, {orbs} orbs, {count} Powers, Loot: {loot}", hero["powers"],
                  loot=_listed(list(hero["loot"])), **values)
    return tn("{hero}: {hp} HP, {orbs} orbs, {count} Power",
              "{hero}: {hp} HP, {orbs} orbs, {count} Powers", hero["powers"], **values)


def chapter_checklist(state: dict) -> list[Text]:
    """The chapter's own setup steps, in the rulebook's order."""
    chapter = state["chapter"]
    quest = state["quest"]
    steps = [t("Chapter {chapter} · {title}. {goal}", chapter=chapter,
               title=CHAPTER_TITLES[chapter], goal=CHAPTER_GOALS[chapter])]
    if state["campaign"] is None:
        steps.append(t("Played as a single non-campaign game: every Hero starts as in classic "
                       "mode (5 HP, 0 orbs, no unique Power, no Loot)."))
    if state["campaign"] is not None:
        carried = _listed([_carried_line(h) for h in state["heroes"]], "; ")
        steps.append(t("From the campaign: {carried}.", carried=carried))
    if state["enraged_types"] and state["campaign"] is None:
        steps.append(t("Put the Enraged Monsters card face up: every Monster is Enraged."))
    elif state["enraged_types"]:
        names = _listed([game.MONSTER_LABELS[k] for k in state["enraged_types"]])
        steps.append(t("Enraged for the rest of the campaign: {types}. Put the Enraged Monsters "
                       "card next to the play area as a reminder.", types=names))
    if chapter == 1:
        steps += [
            t("Leave the Lair, Peddler, Boss, Inn and Energy Well tiles and the 2 Antidote cards "
              "in the box."),
            t("Shuffle 6 Mushroom and 2 Empty Vial Quest markers face down as the Quest pile."),
            t("The rest as in classic mode. {count_stack}", count_stack=_count_stack(state)),
            t("On every revealed tile with a Rune, put a Quest marker face down on the Rune: "
              "a Hero entering it may Search."),
        ]
    elif chapter == 2:
        steps += [
            t("Leave the Lair, Boss and Inn tiles in the box."),
            t("Set aside the Energy Well and Vortex tiles, then shuffle them into the second half "
              "of the Forest stack."),
            _count_stack(state),
            t("Shuffle the 4 Orb markers and deal them as evenly as possible to the players. "
              "Orbs needed at the Energy Well: {orbs}.", orbs=quest["orbs_needed"]),
        ]
    elif chapter == 3:
        steps += [
            t("Lay out the 11 Forest tiles as shown; every Hero starts on the Energy Well tile."),
            t("Put 1 Boss marker, 3 Event markers and 7 Monster markers face down on their icons "
              "(none on the Energy Well)."),
            t("The game begins with the Adventure phase; no Forest tiles are added. The Energy "
              "Well's usual effect does not apply."),
            t("Goal: 1 Boss and {monsters} Monsters defeated (Spirits do not count).",
              monsters=quest["monsters_needed"]),
        ]
    elif chapter == 4:
        steps += [
            t("Lay out the 15 Forest tiles as shown with the 4 Campsite markers; the Heroes start "
              "on the Campfire tile."),
            t("Put 11 Monster, 3 Event and 1 Boss markers face down on their icons."),
            (t("Your Loot cards were shuffled and dealt into 4 face-down piles (on the phones).")
             if state["campaign"] is not None else
             t("Draw 2 Loot cards and 1 per player ({total} in all), shuffle them and put them "
               "face down in 4 piles of {sizes} cards.", total=sum(quest["dealt"]),
               sizes=_listed(list(quest["dealt"])))),
            t("No Forest tiles are added; the Vortex's usual effect does not apply."),
        ]
    else:
        steps += [
            t("Place the three starting tiles as shown; put a Corruption marker on the right-hand "
              "tile. The other 9 Corruption markers are the reserve."),
            t("The rest as in classic mode. Count the Forest stack and correct it on a phone if "
              "it is not {stack}.", stack=state["stack_total"]),
        ]
        if quest["corruption_level"] == 2:
            steps.append(t("All 4 campsites were searched in chapter 4: the chapter starts at a "
                           "Corruption level of 2 instead of 1 at the end of the first Adventure "
                           "phase."))
    return steps


def counts_own_stack(state: dict, placed: int) -> bool:
    """A stack correction is the players' count: chapters 1 and 2, before any tile is drawn."""
    return state.get("chapter") in (1, 2) and placed == 0


def _count_stack(state: dict) -> Text:
    """Chapters 1 and 2: the players count the stack without the Lair tile(s)."""
    return t("Count your Forest stack without the tiles left in the box (at most {most}, fewer "
             "with more than one Lair tile) and set it on a phone before the first tile is "
             "drawn: the app counts from your number.", most=chapter_stack(state["chapter"]))


# ----------------------------------------------------------------- chapter actions (table side)


def set_counter(state: dict, counter: str, value: int) -> None:
    """Correct or move one chapter counter; goals and defeats are checked by the rules."""
    chapter = state["chapter"]
    quest = state["quest"]
    if counter not in CHAPTER_COUNTERS.get(chapter, ()):
        if counter in COUNTER_LABELS:
            raise Rejected(t("{counter} is not counted in chapter {chapter}.",
                             counter=COUNTER_LABELS[counter], chapter=chapter))
        raise Rejected(t("That counter is not counted in chapter {chapter}.", chapter=chapter))
    label = COUNTER_LABELS[counter]
    was = quest[counter]
    if value == was:
        raise Rejected(t("{counter}: already {value}.", counter=label, value=value))
    if value < 0:
        raise Rejected(t("{counter} cannot go below 0.", counter=label))
    high = _counter_high(state, counter)
    if value > high:
        raise Rejected(_too_high(counter, high))
    quest[counter] = value
    state["events"].append(t("{counter}: {was} → {value}.", counter=label, was=was, value=value))
    _after_counter(state, counter, was, value)


def _counter_high(state: dict, counter: str) -> int:
    quest = state["quest"]
    if counter in MUSHROOM_COLOURS:
        held = sum(quest[c] for c in MUSHROOM_COLOURS if c != counter)
        return MUSHROOMS_TOTAL - held - 3 * quest["potions"]
    if counter == "vials":
        return VIALS_TOTAL - quest["potions"]
    if counter == "potions":
        return POTIONS_NEEDED
    if counter == "campfire_monsters":
        return 20
    if counter == "markers_carried":
        return ORB_MARKERS - quest["markers_lost"]
    if counter == "vortex_monsters":
        return quest["markers_carried"]
    if counter == "markers_lost":
        return ORB_MARKERS - quest["markers_carried"]
    if counter == "campsites_found":
        return CAMPSITES
    if counter == "campsites_empty":
        return quest["campsites_found"]
    if counter == "corrupted":
        return CORRUPTION_MARKERS - quest["corrupted_spaces"]
    if counter == "corrupted_spaces":
        return CORRUPTION_MARKERS - quest["corrupted"]
    if counter == "totems":
        return TOTEMS
    return 9  # bosses_left


def _too_high(counter: str, high: int) -> Text:
    if counter in MUSHROOM_COLOURS:
        return t("There are {total} Mushroom markers in all: at most {high} more of this colour.",
                 total=MUSHROOMS_TOTAL, high=high)
    if counter == "vials":
        return t("There are {total} Empty Vial markers: at most {high} still to hold.",
                 total=VIALS_TOTAL, high=high)
    if counter == "vortex_monsters":
        return tn("Only Monsters carrying an Orb marker stop on the Vortex: {count} marker is "
                  "carried.",
                  "Only Monsters carrying an Orb marker stop on the Vortex: {count} markers are "
                  "carried.", high)
    if counter in ("markers_carried", "markers_lost"):
        return t("There are {total} Orb markers in all: at most {high} here.",
                 total=ORB_MARKERS, high=high)
    if counter == "campsites_found":
        return t("There are {total} campsites.", total=CAMPSITES)
    if counter == "campsites_empty":
        return tn("Only {count} campsite is revealed.", "Only {count} campsites are revealed.",
                  high)
    if counter == "totems":
        return t("There are {total} purification totems.", total=TOTEMS)
    if counter in ("corrupted", "corrupted_spaces"):
        return t("There are {total} Corruption markers, on tiles and empty spaces together: at "
                 "most {high} here.", total=CORRUPTION_MARKERS, high=high)
    return t("At most {high}.", high=high)


def _after_counter(state: dict, counter: str, was: int, value: int) -> None:
    chapter = state["chapter"]
    quest = state["quest"]
    if chapter == 1 and counter == "potions" and value >= POTIONS_NEEDED:
        _ambush(state)
    elif chapter == 1 and counter == "potions" and quest["ambushed"]:
        _take_back_ambush(state)
    elif chapter == 1 and counter == "campfire_monsters":
        _check_chapter_1(state)
    elif chapter == 2 and counter in ("markers_carried", "markers_lost"):
        quest["vortex_monsters"] = min(quest["vortex_monsters"], quest["markers_carried"])
        if counter == "markers_lost":
            _check_markers_lost(state)
    elif chapter == 4 and counter in ("campsites_found", "campsites_empty"):
        quest["campsites_empty"] = min(quest["campsites_empty"], quest["campsites_found"])
        if counter == "campsites_empty" and value > was:
            # Each campsite emptied pays one pile, and no campsite pays twice.
            room = quest["campsites_found"] - len(quest["recovered"]) - quest["piles_due"]
            earned = max(0, min(value - was, room, sum(1 for p in quest["piles"] if p)
                                - quest["piles_due"]))
            if earned:
                quest["piles_due"] += earned
                state["events"].append(tn(
                    "Stealing from Thieves: the active player takes one Loot pile and equips "
                    "the cards.",
                    "Stealing from Thieves: the active player takes {count} Loot piles and "
                    "equips the cards.", earned))
        if quest["campsites_empty"] >= CAMPSITES_NEEDED and not quest["goal_reached"]:
            quest["goal_reached"] = True
            state["events"].append(t(
                "Goal reached: {empty} revealed campsites are empty at the same time! End the "
                "chapter now, or play on to empty the 4th campsite.",
                empty=quest["campsites_empty"]))
        elif quest["campsites_empty"] < CAMPSITES_NEEDED and quest["goal_reached"]:
            # Victory once achieved stays achieved: playing on risks only the 4th pile.
            state["events"].append(tn(
                "{count} campsite is empty now; the victory already achieved stands (undo the "
                "tap that reached it if it was a mistake).",
                "{count} campsites are empty now; the victory already achieved stands (undo the "
                "tap that reached it if it was a mistake).", quest["campsites_empty"]))
    elif chapter == 5:
        if counter in ("corrupted", "corrupted_spaces"):
            if _check_reserve(state):
                return
        elif counter == "totems" and value > was:
            state["events"].append(t("Purification totem activated ({value} of {total}): you "
                                     "may purify one Corruption marker (tap Corrupted −1).",
                                     value=value, total=TOTEMS))
        _check_chapter_5(state)


def _check_markers_lost(state: dict) -> None:
    quest = state["quest"]
    held = ORB_MARKERS - quest["markers_carried"] - quest["markers_lost"]
    if quest["markers_lost"] >= ORB_MARKERS:
        game._finish(state, "lost", t("All 4 Orb markers are lost."))
    else:
        state["events"].append(t("Orb markers: {held} held by the Heroes, {carried} carried by "
                                 "Monsters, {lost} lost ({total} lost is defeat).", held=held,
                                 carried=quest["markers_carried"], lost=quest["markers_lost"],
                                 total=ORB_MARKERS))


def thief_on_start(state: dict) -> None:
    """Chapter 2: a Monster with an Orb marker began its move on the Start tile: one marker
    is lost and discarded (a Monster carrying several loses each: tap once per marker)."""
    _need_chapter(state, 2, t("An Orb Thief on the Start tile belongs to chapter {chapter} of "
                              "the campaign.", chapter=2))
    _move_marker(state, "markers_carried", "markers_lost", t("No Monster carries an Orb marker."),
                 t("A Monster with an Orb marker began its move on the Start tile: the Orb marker "
                   "is lost and discarded."))
    quest = state["quest"]
    quest["vortex_monsters"] = min(quest["vortex_monsters"], quest["markers_carried"])
    _check_markers_lost(state)


def _move_marker(state: dict, source: str, target: str, none_left: Text, line: Text) -> None:
    """One marker moves from one counter to another in a single tap, so that no count in
    between can end the chapter by mistake."""
    quest = state["quest"]
    if quest[source] < 1:
        raise Rejected(none_left)
    quest[source] -= 1
    quest[target] += 1
    state["events"].append(line)


def _check_reserve(state: dict) -> bool:
    """Say the reserve and the band; an empty reserve loses. True when the chapter is lost."""
    quest = state["quest"]
    reserve = corruption_reserve(quest)
    if reserve <= 0:
        game._finish(state, "lost", t("The Corruption reserve is empty ({tiles} corrupted tiles, "
                                      "{spaces} markers on empty spaces): the corruption can no "
                                      "longer spread.", tiles=quest["corrupted"],
                                      spaces=quest["corrupted_spaces"]))
        return True
    band = corruption_band(quest["corrupted"])
    state["events"].append(t(
        "Corruption reserve: {reserve} left. {tiles} corrupted tiles, band {band}: Heroes: "
        "{heroes} Enemies: {enemies}", reserve=reserve, tiles=quest["corrupted"],
        band=band["band"], heroes=band["heroes"], enemies=band["enemies"]))
    return False


def cover_space(state: dict) -> None:
    """Chapter 5: a tile placed on a corrupted empty space takes that space's marker."""
    _need_chapter(state, 5, t("A tile on a corrupted space belongs to chapter {chapter} of the "
                              "campaign.", chapter=5))
    _move_marker(state, "corrupted_spaces", "corrupted",
                 t("No Corruption marker is on an empty space."),
                 t("A tile is placed on a corrupted space: it gains the Corruption marker there."))
    _check_reserve(state)


def concoct(state: dict, hero_id: str) -> None:
    """Chapter 1: a Hero at the Campfire turns 3 mushrooms, a vial and 2 orbs into a potion."""
    _need_chapter(state, 1, t("Concocting a potion belongs to chapter {chapter} of the "
                              "campaign.", chapter=1))
    quest = state["quest"]
    hero = game._hero(state, hero_id)
    name = game.hero_label(hero["id"])
    if quest["potions"] >= POTIONS_NEEDED:
        raise Rejected(t("The {count} potions are already concocted.", count=POTIONS_NEEDED))
    if quest["campfire_monsters"]:
        raise Rejected(t("Monsters are on the Campfire: no potion can be concocted until they "
                         "are defeated."))
    missing = [MUSHROOM_NAMES[c] for c in MUSHROOM_COLOURS if quest[c] < 1]
    if missing:
        raise Rejected(t("A potion needs 3 different colours of mushrooms: none of {colours} yet.",
                         colours=join_names(missing)))
    if quest["vials"] < 1:
        raise Rejected(t("A potion needs an empty vial."))
    if hero["hp"] == 0:
        raise Rejected(t("{hero} is knocked down.", hero=name))
    if hero["orbs"] < POTION_ORBS:
        raise Rejected(t("A potion costs {cost} orbs; {hero} has {orbs}.", cost=POTION_ORBS,
                         hero=name, orbs=hero["orbs"]))
    for colour in MUSHROOM_COLOURS:
        quest[colour] -= 1
    quest["vials"] -= 1
    hero["orbs"] -= POTION_ORBS
    quest["potions"] += 1
    state["events"].append(t("{hero} concocts potion {potion} of {needed} at the Campfire: 3 "
                             "mushrooms, 1 vial and {cost} orbs go back in the box ({left} orbs "
                             "left).", hero=name, potion=quest["potions"], needed=POTIONS_NEEDED,
                             cost=POTION_ORBS, left=hero["orbs"]))
    if quest["potions"] == POTIONS_NEEDED:
        _ambush(state)


def _ambush(state: dict) -> None:
    """The second potion, by a concoction or a correction, brings the Campfire ambush, once."""
    quest = state["quest"]
    if quest["ambushed"]:
        return
    ambush = 1 + len(state["heroes"])
    quest["campfire_monsters"] = ambush
    quest["ambushed"] = True
    quest["ambush_placed"] = ambush
    state["events"].append(t("Monsters are watching you! Draw {count} Monster markers (1 + 1 "
                             "per Hero) and put them on the Campfire tile: defeat them all "
                             "to win.", count=ambush))


def _take_back_ambush(state: dict) -> None:
    """Potions corrected back under 2: the ambush that correction placed is taken back, so
    the real second potion brings it again."""
    quest = state["quest"]
    quest["campfire_monsters"] = max(0, quest["campfire_monsters"] - quest["ambush_placed"])
    quest["ambushed"] = False
    quest["ambush_placed"] = 0
    state["events"].append(tn("Under {needed} potions again: the Campfire ambush is taken "
                              "back ({count} Monster left on the Campfire); the second potion "
                              "brings it.",
                              "Under {needed} potions again: the Campfire ambush is taken "
                              "back ({count} Monsters left on the Campfire); the second potion "
                              "brings it.", quest["campfire_monsters"], needed=POTIONS_NEEDED))


def _check_chapter_1(state: dict) -> None:
    quest = state["quest"]
    if quest["potions"] >= POTIONS_NEEDED and quest["ambushed"] and quest["campfire_monsters"] == 0:
        game._finish(state, "won", t("The 2 potions are concocted and the Campfire is clear of "
                                     "Monsters: the elder is saved!"))


def energy_well(state: dict, marker_orbs: int, pays: dict) -> None:
    """Chapter 2: every Hero meets on the Energy Well; enough orbs among them wins.

    The players say how many orbs each Hero pays; the Orb markers pay the rest. What is left
    is kept, so who pays decides what each Hero carries on.
    """
    _need_chapter(state, 2, t("Filling the Energy Well belongs to chapter {chapter} of the "
                              "campaign.", chapter=2))
    quest = state["quest"]
    needed = quest["orbs_needed"]
    held = ORB_MARKERS - quest["markers_carried"] - quest["markers_lost"]
    if marker_orbs and not held:
        raise Rejected(t("The Heroes hold no Orb marker."))
    in_game = {hero["id"]: hero for hero in state["heroes"]}
    for hero_id, pay in pays.items():
        if pay and hero_id not in in_game:
            raise Rejected(t("{hero} is not in this game.", hero=game.hero_label(hero_id)))
    total = marker_orbs + sum(h["orbs"] for h in state["heroes"])
    if total < needed:
        raise Rejected(t("The Heroes have {total} orbs with the Orb markers; the Energy Well "
                         "needs {needed}.", total=total, needed=needed))
    paid = []
    for hero in state["heroes"]:
        pay = pays.get(hero["id"]) or 0
        if pay > hero["orbs"]:
            raise Rejected(t("{hero} has {orbs} orbs and cannot pay {pay}.",
                             hero=game.hero_label(hero["id"]), orbs=hero["orbs"], pay=pay))
        if pay:
            paid.append((hero, pay))
    from_heroes = sum(pay for _, pay in paid)
    if from_heroes > needed:
        raise Rejected(t("The Heroes would pay {paid} orbs; the Energy Well takes {needed}.",
                         paid=from_heroes, needed=needed))
    from_markers = needed - from_heroes
    if from_markers > marker_orbs:
        raise Rejected(t("Say who pays: the Orb markers hold {markers} orbs, so the Heroes pay "
                         "{owed} between them ({paid} so far).", markers=marker_orbs,
                         owed=needed - marker_orbs, paid=from_heroes))
    for hero, pay in paid:
        hero["orbs"] -= pay
    parts = ([t("the Orb markers {orbs}", orbs=from_markers)] if from_markers else [])
    parts += [t("{hero} {orbs}", hero=game.hero_label(hero["id"]), orbs=pay) for hero, pay in paid]
    kept = _listed([t("{hero} {orbs}", hero=game.hero_label(h["id"]), orbs=h["orbs"])
                    for h in state["heroes"]])
    state["events"].append(t("The Heroes pour {needed} orbs into the Energy Well ({paid}); the "
                             "orbs left are kept ({kept}).", needed=needed, paid=_listed(parts),
                             kept=kept))
    game._finish(state, "won", t("The Energy Well is revived with {needed} orbs!", needed=needed))


def well_overrun(state: dict) -> None:
    _need_chapter(state, 3, t("A Monster on the Energy Well belongs to chapter {chapter} of the "
                              "campaign.", chapter=3))
    game._finish(state, "lost", t("A Monster marker is on the Energy Well tile at the end of the "
                                  "round."))


def take_pile(state: dict, hero_id: str, pile: int, discard: str = "") -> None:
    """Chapter 4: after emptying a campsite, the active player recovers one Loot pile.

    The Hero equips every card; past the 3 slots each card replaces one, which is discarded:
    `discard` names them by number, the Hero's cards first, then the pile's.
    """
    _need_chapter(state, 4, t("Recovering a Loot pile belongs to chapter {chapter} of the "
                              "campaign.", chapter=4))
    quest = state["quest"]
    hero = game._hero(state, hero_id)
    name = game.hero_label(hero["id"])
    if pile >= len(quest["piles"]) or not quest["piles"][pile]:
        raise Rejected(t("That Loot pile is already taken."))
    if quest["piles_due"] < 1:
        raise Rejected(t("A Loot pile is taken only when a campsite's tile is emptied of "
                         "Monsters: set Revealed campsites empty first."))
    if state["phase"] != game.PHASE_OVER:
        # Once the chapter has ended there is no turn: the players name who takes it.
        game._require_active(state, hero, t("Recovering a Loot pile"))
    cards = hero["loot"] + quest["piles"][pile]
    over = len(cards) - game.loot_slots(hero)
    chosen = _discards(discard, len(cards))
    if over > 0 and len(chosen) != over:
        listed = _listed([t("{number} {card}", number=i, card=card)
                          for i, card in enumerate(cards, 1)])
        raise Rejected(t("{hero} holds {slots} Loot cards at most: choose {over} to discard "
                         "among {cards}.", hero=name, slots=game.loot_slots(hero), over=over,
                         cards=listed))
    if over <= 0 and chosen:
        raise Rejected(t("Every card fits in {hero}'s slots: nothing to discard.", hero=name))
    hero["loot"] = [card for i, card in enumerate(cards, 1) if i not in chosen]
    quest["piles"][pile] = []
    quest["recovered"].append(pile)
    quest["piles_due"] -= 1
    if chosen:
        state["events"].append(t("{hero} recovers Loot pile {pile} and equips it. Discarded: "
                                 "{cards}.", hero=name, pile=pile + 1,
                                 cards=_listed([cards[i - 1] for i in sorted(chosen)])))
    else:
        state["events"].append(t("{hero} recovers Loot pile {pile} and equips it.", hero=name,
                                 pile=pile + 1))


def _discards(text: str, count: int) -> set[int]:
    """Card numbers from "1, 4"; refused unless each is a card's number, once."""
    parts = [part.strip() for part in (text or "").replace(" ", ",").split(",") if part.strip()]
    if not all(part.isdigit() and 1 <= int(part) <= count for part in parts):
        raise Rejected(t("Name the cards to discard by their numbers, from 1 to {count}.",
                         count=count))
    numbers = {int(part) for part in parts}
    if len(numbers) != len(parts):
        raise Rejected(t("Name each card to discard once."))
    return numbers


def burn_pile(state: dict, pile: int) -> None:
    """Chapter 4's deserted campsite: only one card of the chosen pile survives the flames."""
    _need_chapter(state, 4, t("Burning a Loot pile belongs to chapter {chapter} of the "
                              "campaign.", chapter=4))
    piles = state["quest"]["piles"]
    if pile >= len(piles) or not piles[pile]:
        raise Rejected(t("That Loot pile is already taken."))
    if len(piles[pile]) == 1 and any(len(p) > 1 for p in piles):
        raise Rejected(t("Choose a pile with more than one card."))
    burnt = len(piles[pile]) - 1
    piles[pile] = piles[pile][:1]
    state["events"].append(tn("The deserted campsite: {count} card of Loot pile {pile} burnt; "
                              "one card survives.",
                              "The deserted campsite: {count} cards of Loot pile {pile} burnt; "
                              "one card survives.", burnt, pile=pile + 1))


# The Loot actions still open once a won chapter has ended, and the Loot each one settles.
LOOT_AFTER_END = {"take_pile": "piles", "add_loot": "chests", "remove_loot": "chests",
                  "give_loot": "chests"}


def loot_due(state: dict) -> dict:
    """The campaign Loot the Heroes earned and have not taken yet: chapter 4's Loot piles due
    (as many as piles are left) and the Boss's chest cards not yet drawn."""
    quest = state.get("quest") or {}
    piles = 0
    if state.get("chapter") == 4:
        piles = min(quest.get("piles_due", 0), sum(1 for pile in quest["piles"] if pile))
    return {"piles": piles, "chests": quest.get("chests_due", 0)}


def loot_open(state: dict, action: str) -> bool:
    """After a won chapter's end, the Loot still due can be taken (never lost by the order of
    taps): a pile while one is due, a chest card (and room made for it) while one is due."""
    result = state.get("result") or {}
    kind = LOOT_AFTER_END.get(action)
    return (kind is not None and result.get("outcome") == "won"
            and loot_due(state)[kind] > 0)


def loot_waiting(state: dict) -> Text | None:
    """What the Heroes still have to take before the chapter's end is confirmed, or None."""
    if (state.get("result") or {}).get("outcome") != "won":
        return None  # a lost chapter restarts from its saved start: nothing is carried
    due = loot_due(state)
    piles, chests = due["piles"], due["chests"]
    if piles and chests:
        return tn("Before confirming the end: the active player takes one Loot pile and draw "
                  "{cards} from the Boss's chests for the Heroes who defeated it, so the next "
                  "chapter has them.",
                  "Before confirming the end: the active player takes {count} Loot piles and "
                  "draw {cards} from the Boss's chests for the Heroes who defeated it, so the "
                  "next chapter has them.", piles, cards=_loot_cards(chests))
    if piles:
        return tn("Before confirming the end: the active player takes one Loot pile, so the "
                  "next chapter has them.",
                  "Before confirming the end: the active player takes {count} Loot piles, so "
                  "the next chapter has them.", piles)
    if chests:
        return tn("Before confirming the end: draw a Loot card from the Boss's chests for the "
                  "Heroes who defeated it, so the next chapter has them.",
                  "Before confirming the end: draw {count} Loot cards from the Boss's chests "
                  "for the Heroes who defeated it, so the next chapter has them.", chests)
    return None


def _loot_cards(count: int) -> Text:
    return tn("a Loot card", "{count} Loot cards", count)


def chest_drawn(state: dict) -> None:
    """A Loot card added while the Boss's chest cards are due is one of them."""
    quest = state.get("quest") or {}
    if quest.get("chests_due", 0) > 0:
        quest["chests_due"] -= 1
        left = quest["chests_due"]
        state["events"].append(tn("Chest card drawn. {count} more to draw.",
                                  "Chest card drawn. {count} more to draw.", left) if left
                               else t("Chest card drawn."))


def claim_victory(state: dict) -> None:
    _need_chapter(state, 4, t("Ending the chapter belongs to chapter {chapter} of the "
                              "campaign.", chapter=4))
    quest = state["quest"]
    if not quest["goal_reached"]:
        raise Rejected(tn("{count} revealed campsite is empty; {needed} are needed at the same "
                          "time.",
                          "{count} revealed campsites are empty; {needed} are needed at the "
                          "same time.", quest["campsites_empty"], needed=CAMPSITES_NEEDED))
    game._finish(state, "won", victory_text(state, t("Your equipment is recovered!")))


def victory_stands(state: dict) -> bool:
    """Chapter 4: once 3 campsites were empty at once the chapter is won, whatever comes next."""
    return state.get("chapter") == 4 and state["quest"]["goal_reached"]


def victory_text(state: dict, line: str) -> str:
    """Chapter 4's victory sentence `line`, and what became of the 4th pile when no emptied
    campsite paid for it (a sentence of its own after `line`)."""
    quest = state["quest"]
    untaken = [i for i, p in enumerate(quest["piles"]) if p]
    # Only the pile no emptied campsite paid for is discarded: a pile due is still taken.
    if quest["campsites_empty"] < CAMPSITES and len(untaken) > quest["piles_due"]:
        return t("{victory} The 4th campsite was not emptied: the last Loot pile is discarded, "
                 "your equipment is in the monsters' hands now.", victory=line)
    return line


def boss_defeated(state: dict, chests: int = 0, which: int = 0) -> None:
    """A Boss defeated in a chapter: the chapter's goal decides, never the Boss alone.

    In Campaign mode the chests on the Boss tile and card go to the Heroes who defeated it.
    """
    chapter = state["chapter"]
    boss = state["boss"]
    if chests:
        state["quest"]["boss_chests"] = state["quest"].get("boss_chests", 0) + chests
        state["quest"]["chests_due"] = state["quest"].get("chests_due", 0) + chests
        state["events"].append(tn(
            "The Boss's treasure: {count} chest. Draw a Loot card for the Heroes who defeated "
            "it (add them to their Loot on the phones, even once the chapter has ended): they "
            "take them into the next chapter.",
            "The Boss's treasure: {count} chests. Draw {count} Loot cards for the Heroes who "
            "defeated it (add them to their Loot on the phones, even once the chapter has "
            "ended): they take them into the next chapter.", chests))
    if chapter in (3, 4):
        boss["defeated"] = True
    if chapter == 3:
        state["quest"]["boss_defeated"] = True
        state["events"].append(t("{boss} is defeated: 1 Boss of 1.", boss=boss["name"])
                               if boss["name"] else t("The Boss is defeated: 1 Boss of 1."))
        check_chapter_3(state)
    elif chapter == 4:
        state["events"].append(t("{boss} is defeated.", boss=boss["name"]) if boss["name"]
                               else t("The Boss is defeated."))
    else:
        quest = state["quest"]
        more = quest.setdefault("more_bosses", [])
        beaten = more.pop(which - 1) if which else boss
        quest["bosses_defeated"] += 1
        quest["bosses_left"] = max(len(more) + (1 if which else 0),
                                   quest["bosses_left"] - 1)
        state["events"].append(
            t("{boss} is defeated: you may purify one Corruption marker (tap Corrupted −1). "
              "Bosses left in the forest: {left}.", boss=beaten["name"], left=quest["bosses_left"])
            if beaten["name"] else
            t("The Boss is defeated: you may purify one Corruption marker (tap Corrupted −1). "
              "Bosses left in the forest: {left}.", left=quest["bosses_left"]))
        if which == 0 and more:
            # The next Boss still in the forest takes the Boss panel, its track as it stands.
            state["boss"] = {"revealed": True, "defeated": False, **more.pop(0)}
        elif which == 0:
            # Another Boss may come: its track starts afresh.
            state["boss"] = {"revealed": False, "key": None, "name": None, "track": None,
                             "threat": 0, "defeated": False}
        _check_chapter_5(state)


def another_boss(state: dict, key: str, name: str, track: int, cause: str) -> None:
    """Chapter 5: a Boss revealed while another lives gets its own threat track."""
    quest = state["quest"]
    more = quest.setdefault("more_bosses", [])
    if len(more) >= 8:
        raise Rejected(t("Nine Bosses at once is more than the box holds."))
    more.append({"key": key, "name": name, "track": track, "threat": 1,
                 "revealed_by": game.REVEALED_BY[cause]})
    state["events"].append(ANOTHER_REVEAL_TEXTS[cause])
    state["events"].append(t("Another Boss in the forest: {boss}, threat 1 of {track}. Each "
                             "Boss's threat rises after every turn and every round.", boss=name,
                             track=track))
    if state["enraged_bosses"] and key in game.ENRAGED_BOSS_ALWAYS:
        state["events"].append(game.ENRAGED_BOSS_ALWAYS[key])
    quest["bosses_left"] = max(quest["bosses_left"], 1 + len(more))


# game.REVEAL_TEXTS said of a Boss revealed while another lives.
ANOTHER_REVEAL_TEXTS = {
    "tile": t("A Hero enters another Boss tile: the Boss is revealed! The blue cube goes on the "
              "first space of its threat track."),
    "corruption": t("The corruption spreads to another Boss's tile: the Boss is revealed at once "
                    "and its threat track is activated (the blue cube on its first space)."),
}


def boss_found(state: dict) -> None:
    """Chapter 5: a Boss revealed is a Boss in the forest, at least until it is defeated."""
    quest = state["quest"]
    live = 1 + len(quest.get("more_bosses", []))
    if quest["bosses_left"] < live:
        quest["bosses_left"] = live
        state["events"].append(t("Bosses in the forest: {count} to defeat.", count=live))


def check_chapter_3(state: dict) -> None:
    quest = state["quest"]
    count = monsters_counted(state["monsters"])
    if quest["boss_defeated"] and count >= quest["monsters_needed"]:
        game._finish(state, "won", t("1 Boss and {count} Monsters defeated: the Energy Well "
                                     "holds!", count=count))


def _check_chapter_5(state: dict) -> None:
    quest = state["quest"]
    if state["phase"] == game.PHASE_OVER:
        return
    if quest["totems"] >= TOTEMS and quest["bosses_left"] == 0:
        # "No bosses remain in the forest": a Boss tile still in the stack is not in it.
        game._finish(state, "won", t("The 4 totems are active and no Boss remains: the forest "
                                     "is purified!"))


def after_round(state: dict, round_number: int) -> None:
    """End of a round in a chapter: what the chapter makes happen now."""
    chapter = state["chapter"]
    if chapter == 2:
        quest = state["quest"]
        if quest["markers_carried"]:
            state["events"].append(t("Orb Thieves: a Monster with an Orb marker that begins its "
                                     "move on the Start tile loses the marker, discarded: tap "
                                     "'An Orb Thief on the Start tile' for each marker."))
        if quest["teleported"]:
            state["events"].append(tn("The Monster teleported to the Start tile last round "
                                      "begins its move there.",
                                      "The {count} Monsters teleported to the Start tile last "
                                      "round begin their move there.", quest["teleported"]))
        quest["teleported"] = 0
        if quest["vortex_monsters"]:
            quest["teleported"] = quest["vortex_monsters"]
            state["events"].append(tn("The Monster with an Orb marker stopped on the Vortex "
                                      "teleports to the Start tile now.",
                                      "The {count} Monsters with an Orb marker stopped on the "
                                      "Vortex teleport to the Start tile now.",
                                      quest["vortex_monsters"]))
            quest["vortex_monsters"] = 0
        state["events"].append(t("Orb Thieves and chasers move: Monsters with an Orb marker 2 "
                                 "tiles toward the Start tile (one that moves onto the Vortex "
                                 "tile stops there: count it on a phone, it teleports to the "
                                 "Start tile at the end of the next round), chasing Monsters 1 "
                                 "tile (2 once the Energy Well is revealed) toward the nearest "
                                 "Hero with an Orb marker."))
    elif chapter == 3:
        state["events"].append(t("End of round {round}: {spawn}", round=round_number,
                                 spawn=spawn_text(round_number)))
        if round_number == 5 and state["boss"]["revealed"] and state["boss"]["defeated"]:
            # The first Boss was beaten: the tile is empty, so a second Boss comes, played
            # like the first (its own track from the first space).
            state["boss"] = {"revealed": False, "key": None, "name": None, "track": None,
                             "threat": 0, "defeated": False}
        if round_number == 5 and not state["boss"]["revealed"]:
            game._reveal_boss_now(state, t("End of round 5: put 1 Boss card on the Boss tile "
                                           "and reveal it! The blue cube goes on the first "
                                           "space of its threat track; name the Boss on a "
                                           "phone."),
                                  t("the end of round 5 (the spawn table)"))
        state["events"].append(t("Is a Monster marker on the Energy Well tile? Then the chapter "
                                 "is lost: tap 'A Monster is on the Well'."))
    elif chapter == 5:
        if round_number == 1 and state["quest"]["corruption_level"] == 2:
            state["events"].append(t("All 4 campsites were searched in chapter 4: the chapter "
                                     "is at a Corruption level of 2 instead of 1 at the end of "
                                     "this first Adventure phase (see Number of Corrupted "
                                     "Forest Tiles)."))
        state["events"].append(t("The corruption spreads: a Corruption marker on every tile "
                                 "connected by a path to a corrupted tile, and on every empty "
                                 "space next to one where an open path exists. Count the "
                                 "corrupted tiles and the markers on empty spaces apart on a "
                                 "phone."))


def _need_chapter(state: dict, chapter: int, refusal: Text) -> None:
    """Refused (`refusal`: "... belongs to chapter N of the campaign.") outside `chapter`."""
    if state.get("chapter") != chapter:
        raise Rejected(refusal)


def quest_view(state: dict) -> dict | None:
    chapter = state.get("chapter")
    if not chapter:
        return None
    quest = state["quest"]
    view = {"number": chapter, "title": CHAPTER_TITLES[chapter], "goal": CHAPTER_GOALS[chapter],
            "campaign": state["campaign"], "counters": {}, "steps": chapter_checklist(state)}
    for counter in CHAPTER_COUNTERS[chapter]:
        view["counters"][counter] = {"value": quest[counter], "label": COUNTER_LABELS[counter],
                                     "high": max(quest[counter], _counter_high(state, counter))}
    view["boss_chests"] = quest.get("boss_chests", 0)
    due = loot_due(state)
    view["chests_due"] = due["chests"]
    # Once the chapter is won and over, the Loot still due is taken before the end is confirmed.
    view["loot_after_end"] = (state["phase"] == game.PHASE_OVER and (state.get("result") or {})
                              .get("outcome") == "won" and bool(due["piles"] or due["chests"]))
    view["loot_waiting"] = loot_waiting(state) if view["loot_after_end"] else None
    if chapter == 1:
        view["potions"] = quest["potions"]
        view["ambushed"] = quest["ambushed"]
        view["ingredients_ready"] = (all(quest[c] >= 1 for c in MUSHROOM_COLOURS)
                                     and quest["vials"] >= 1)
    elif chapter == 2:
        view["orbs_needed"] = quest["orbs_needed"]
        view["markers_held"] = ORB_MARKERS - quest["markers_carried"] - quest["markers_lost"]
        view["hero_orbs"] = sum(h["orbs"] for h in state["heroes"])
        view["vortex_monsters"] = quest["vortex_monsters"]
        view["teleported"] = quest["teleported"]
    elif chapter == 3:
        view["monsters_needed"] = quest["monsters_needed"]
        view["monsters_counted"] = monsters_counted(state["monsters"])
        view["boss_defeated"] = quest["boss_defeated"]
        view["spawn_rows"] = [{"round": r, "text": SPAWN_TABLE[r], "now": r == state["round"]}
                              for r in sorted(SPAWN_TABLE)]
        view["spawn_rows"].append({"round": "8+", "text": SPAWN_LATER, "now": state["round"] >= 8})
        view["spawn_now"] = spawn_text(state["round"])
    elif chapter == 4:
        view["goal_reached"] = quest["goal_reached"]
        view["piles"] = [{"index": i, "cards": len(p)} for i, p in enumerate(quest["piles"])]
        view["burnable"] = any(len(p) > 1 for p in quest["piles"])
        view["piles_due"] = quest["piles_due"]
    else:
        view["band"] = corruption_band(quest["corrupted"])
        view["reserve"] = corruption_reserve(quest)
        view["corrupted_tiles"] = quest["corrupted"]
        view["corrupted_spaces"] = quest["corrupted_spaces"]
        view["bosses_defeated"] = quest["bosses_defeated"]
        view["corruption_level"] = quest["corruption_level"]
    return view


# ----------------------------------------------------------------- The Forest Awakens


def forest_awakens(defeated: dict, enraged: list, rng: random.Random) -> dict:
    """Which Monster type becomes Enraged after a won chapter, and how it was chosen.

    Spirits are left out of the count. The most-defeated type becomes Enraged; on a tie, a
    random draw among the tied types not yet Enraged; where the most-defeated type is already
    Enraged (or none was defeated), a random draw among all types not yet Enraged, Spirits
    included.
    """
    counts = {kind: int(defeated.get(kind, 0)) for kind in game.MONSTERS if kind != "spirit"}
    free = [kind for kind in game.MONSTERS if kind not in enraged]
    result = {"counts": counts, "type": None, "how": "none", "among": []}
    if not free:
        return result
    most = max(counts.values())
    tied = [kind for kind in game.MONSTERS if kind in counts and counts[kind] == most]
    if most > 0 and len(tied) == 1 and tied[0] not in enraged:
        result.update(type=tied[0], how="most")
        return result
    tied_free = [kind for kind in tied if kind not in enraged]
    if most > 0 and len(tied) > 1 and tied_free:
        among, how = tied_free, "tie"
    else:
        among, how = free, ("none_defeated" if most == 0 else "already")
    result.update(type=among[0] if len(among) == 1 else rng.choice(among), how=how, among=among)
    return result


def awakening_text(draw: dict) -> Text:
    if draw["type"] is None:
        return t("The Forest Awakens: every Monster type is already Enraged.")
    monsters = MONSTER_PLURALS[draw["type"]]
    names = _listed([game.MONSTER_LABELS[k] for k in draw.get("among", [])])
    if draw["how"] == "most":
        count = draw["counts"][draw["type"]]
        return t("The Forest Awakens: {monsters} were defeated most ({count}) and become Enraged.",
                 monsters=monsters, count=count)
    if draw["how"] == "tie":
        return t("The Forest Awakens: a tie for most defeated; drawn at random among {types}: "
                 "{monsters} become Enraged.", types=names, monsters=monsters)
    if draw["how"] == "already":
        return t("The Forest Awakens: the most-defeated type is already Enraged; drawn at random "
                 "among {types}: {monsters} become Enraged.", types=names, monsters=monsters)
    return t("The Forest Awakens: no Monster was defeated; drawn at random among {types}: "
             "{monsters} become Enraged.", types=names, monsters=monsters)


# ----------------------------------------------------------------- the campaign record


def new_campaign(name, players: list[str], heroes: list[str], first_player: int,
                 thorns: str) -> dict:
    """A campaign at the start of chapter 1: every Hero at 5 HP, 0 orbs, no Power, no Loot."""
    name = " ".join(str(name or "").split())
    if not name:
        raise Rejected(t("Give the campaign a name, so you can find it another evening."))
    if len(name) > 40:
        raise Rejected(t("A campaign name has at most 40 characters."))
    if thorns not in game.THORNS_CARDS:
        raise Rejected(t("Choose the Easy, Regular or Difficult Thorns card."))
    if not 0 <= first_player < len(players):
        raise Rejected(t("The first player must be one of the players."))
    seats = list(range(len(players))) if len(players) > 1 else [0, 0]
    return {
        "name": name,
        "players": list(players),
        "first_player": first_player,
        "thorns": thorns,
        "heroes": [{"id": hero, "seat": seat} for hero, seat in zip(heroes, seats)],
        "carry": {hero: {"hp": game.MAX_HP, "orbs": 0, "powers": 0, "loot": []}
                  for hero in heroes},
        "enraged": [],
        "chapter": 1,
        "finished": False,
        "attempts": {str(n): 0 for n in CHAPTERS},
        "results": {str(n): None for n in CHAPTERS},
        "table": None,
        "table_chapter": None,
        "awaiting_discards": False,
        "all_campsites": False,
        "recorded": {},
    }


def table_options(campaign: dict, campaign_id: int, rng: random.Random) -> dict:
    """The raw options of the Explorers table that plays the campaign's current chapter."""
    if campaign["finished"]:
        raise Rejected(t("The campaign is over: all five chapters are won."))
    if campaign["awaiting_discards"]:
        raise Rejected(t("The chapter was lost: each Hero discards one Loot card first."))
    chapter = campaign["chapter"]
    heroes = campaign["heroes"]
    raw = {"first_player": str(campaign["first_player"]), "thorns": campaign["thorns"]}
    if len(campaign["players"]) == 1:
        raw["hero_1"], raw["solo_hero"] = heroes[0]["id"], heroes[1]["id"]
    else:
        for hero in heroes:
            raw[f"hero_{hero['seat'] + 1}"] = hero["id"]
    carry = copy.deepcopy(campaign["carry"])
    start = {"campaign": campaign_id, "chapter": chapter, "carry": carry,
             "enraged": list(campaign["enraged"])}
    if chapter == 4:
        start["piles"] = deal_piles(carry, rng)
        for hero in carry.values():
            hero["loot"] = []
    if chapter == 5:
        start["corruption_level"] = 2 if campaign["all_campsites"] else 1
    raw["campaign_start"] = start
    return raw


def deal_piles(carry: dict, rng: random.Random) -> list[list[str]]:
    """Chapter 4: every Hero's Loot shuffled together and dealt face down into 4 piles."""
    cards = [card for hero in carry.values() for card in hero["loot"]]
    while len(cards) < LOOT_PILES:
        cards.append(EXTRA_LOOT)
    rng.shuffle(cards)
    return [cards[i::LOOT_PILES] for i in range(LOOT_PILES)]


def chapter_started(campaign: dict, code: str) -> tuple[dict, list[Text]]:
    new = copy.deepcopy(campaign)
    chapter = new["chapter"]
    new["attempts"][str(chapter)] += 1
    new["table"] = code
    new["table_chapter"] = chapter
    attempt = new["attempts"][str(chapter)]
    return new, [t("Chapter {chapter} · {title}: attempt {attempt} starts at table {code}.",
                   chapter=chapter, title=CHAPTER_TITLES[chapter], attempt=attempt, code=code)]


def carry_after(chapter: int, heroes: list[dict]) -> dict:
    """What each Hero takes into the next chapter after winning `chapter`.

    Powers and Loot are kept, status markers discarded. HP and orbs reset (5 and 0), except
    into chapter 3: orbs kept and 1 HP recovered.
    """
    carry = {}
    for hero in heroes:
        if chapter == 2:
            hp, orbs = min(game.MAX_HP, hero["hp"] + 1), hero["orbs"]
        else:
            hp, orbs = game.MAX_HP, 0
        carry[hero["id"]] = {"hp": hp, "orbs": orbs, "powers": hero["powers"],
                             "loot": list(hero["loot"])[:game.LOOT_SLOTS]}
    return carry


def record_result(campaign: dict, code: str, table_state: dict,
                  rng: random.Random) -> tuple[dict, list[Text]]:
    """Apply a finished chapter table to the campaign, once; a table seen before changes nothing."""
    if code in campaign["recorded"] or code != campaign["table"]:
        return campaign, []
    if table_state.get("phase") != game.PHASE_OVER or not table_state.get("result"):
        return campaign, []
    new = copy.deepcopy(campaign)
    chapter = table_state["chapter"]
    outcome = table_state["result"]["outcome"]
    reason = table_state["result"]["reason"]
    entry = {"chapter": chapter, "outcome": outcome, "draw": None}
    events = []
    if outcome == "won":
        events.append(t("Chapter {chapter} won: {reason}", chapter=chapter, reason=reason))
        new["results"][str(chapter)] = "won"
        new["carry"] = carry_after(chapter, table_state["heroes"])
        if chapter == 4:
            new["all_campsites"] = table_state["quest"]["campsites_empty"] >= CAMPSITES
        if chapter == 5:
            # The last chapter ends the campaign: nothing is carried and nothing awakens.
            new["finished"] = True
            events.append(t("The campaign is won: the forest is saved. Congratulations!"))
        else:
            events.append(_carry_text(chapter))
            draw = forest_awakens(table_state["monsters"], new["enraged"], rng)
            entry["draw"] = draw
            if draw["type"]:
                new["enraged"].append(draw["type"])
                new["enraged"] = [k for k in game.MONSTERS if k in new["enraged"]]
            events.append(awakening_text(draw))
            new["chapter"] = chapter + 1
    else:
        events.append(t("Chapter {chapter} lost: {reason} Each Hero discards one Loot card, "
                        "then the chapter starts again from its saved starting state.",
                        chapter=chapter, reason=reason))
        new["results"][str(chapter)] = "lost"
        new["awaiting_discards"] = True
    new["recorded"][code] = entry
    new["table"] = None
    return new, events


def _carry_text(chapter: int) -> Text | str:
    if chapter == 2:
        return t("Carried into chapter 3: Powers, Loot and orbs; each Hero recovers only 1 HP; "
                 "status markers discarded.")
    return (t("Carried into chapter {chapter}: Powers and Loot; HP back to 5, orbs to 0, status "
              "markers discarded.", chapter=chapter + 1) if chapter < 5 else "")


def restart(campaign: dict, discards: dict) -> tuple[dict, list[Text]]:
    """A lost chapter: each Hero with Loot discards the card the players chose."""
    if not campaign["awaiting_discards"]:
        raise Rejected(t("No chapter is waiting to be restarted."))
    new = copy.deepcopy(campaign)
    said = t("Chapter {chapter} restarts from its starting state.", chapter=new["chapter"])
    for hero in new["heroes"]:
        loot = new["carry"][hero["id"]]["loot"]
        name = game.hero_label(hero["id"])
        if not loot:
            line = t("{hero} has no Loot card to discard.", hero=name)
        else:
            index = discards.get(hero["id"])
            if (isinstance(index, bool) or not isinstance(index, int)
                    or not 0 <= index < len(loot)):
                raise Rejected(t("Choose which Loot card {hero} discards.", hero=name))
            line = t("{hero} discards {card}.", hero=name, card=loot.pop(index))
        # One sentence after another, each said whole.
        said = tc("sentences", "{first} {then}", first=said, then=line)
    new["awaiting_discards"] = False
    return new, [said]


def campaign_view(campaign: dict) -> dict:
    """The campaign page: who plays which Hero, what they carry, where the campaign stands."""
    players = campaign["players"]
    heroes = []
    for hero in campaign["heroes"]:
        carry = campaign["carry"][hero["id"]]
        heroes.append({"id": hero["id"], "label": game.hero_label(hero["id"]),
                       "color": game.HERO_COLORS[hero["id"]], "owner": players[hero["seat"]],
                       **carry})
    chapters = [{"number": n, "title": CHAPTER_TITLES[n], "goal": CHAPTER_GOALS[n],
                 "attempts": campaign["attempts"][str(n)], "result": campaign["results"][str(n)],
                 "current": n == campaign["chapter"] and not campaign["finished"]}
                for n in CHAPTERS]
    draws = [{"chapter": e["chapter"], "text": awakening_text(e["draw"]), **e["draw"]}
             for e in campaign["recorded"].values() if e.get("draw")]
    return {"name": campaign["name"], "players": list(players), "heroes": heroes,
            "enraged": [{"kind": k, "label": game.MONSTER_LABELS[k], "icon": game.MONSTER_ICONS[k],
                         "text": game.ENRAGED_MONSTERS[k]} for k in campaign["enraged"]],
            "chapter": campaign["chapter"], "chapter_title": CHAPTER_TITLES[campaign["chapter"]],
            "finished": campaign["finished"], "chapters": chapters, "table": campaign["table"],
            "awaiting_discards": campaign["awaiting_discards"], "draws": draws,
            "thorns": game.THORNS_LABELS[campaign["thorns"]]}


# ----------------------------------------------------------------- the tally, corrected


def correctable_chapter(campaign: dict) -> str | None:
    """The table of the chapter whose Monster tally may still be corrected: the last chapter
    recorded, when it was won with a draw of The Forest Awakens (not chapter 5, which ends
    the campaign) and the next has not started."""
    if campaign["table"] or campaign["awaiting_discards"] or campaign["finished"]:
        return None
    if not campaign["recorded"]:
        return None
    code, entry = list(campaign["recorded"].items())[-1]
    return code if entry.get("draw") else None  # only a won chapter draws


def correct_tally(campaign: dict, monsters: dict, rng: random.Random) -> tuple[dict, list[Text]]:
    """The last won chapter's Monsters defeated, corrected before the next chapter starts:
    its draw of The Forest Awakens is undone and drawn again from the corrected tally."""
    code = correctable_chapter(campaign)
    if code is None:
        raise Rejected(t("No chapter's tally can be corrected now: only the last chapter won, "
                         "until the next one starts."))
    new = copy.deepcopy(campaign)
    entry = new["recorded"][code]
    old_type = entry["draw"]["type"]
    enraged = [kind for kind in new["enraged"] if kind != old_type]
    draw = forest_awakens(monsters, enraged, rng)
    if draw["type"]:
        enraged.append(draw["type"])
    new["enraged"] = [kind for kind in game.MONSTERS if kind in enraged]
    entry["draw"] = draw
    entry["monsters"] = {kind: int(monsters.get(kind, 0)) for kind in game.MONSTERS}
    counted = join_names([MONSTER_COUNTS[k](entry["monsters"][k]) for k in game.MONSTERS])
    return new, [t("Chapter {chapter}'s Monster tally corrected: {counts}.",
                   chapter=entry["chapter"], counts=counted),
                 awakening_text(draw)]


# A number of Monsters of one type, as a corrected tally says it.
MONSTER_COUNTS = {
    "mushroom": lambda n: tnc("monster type", "{count} Mushroom", "{count} Mushrooms", n),
    "plant": lambda n: tnc("monster type", "{count} Plant", "{count} Plants", n),
    "spirit": lambda n: tnc("monster type", "{count} Spirit", "{count} Spirits", n),
    "skeleton": lambda n: tnc("monster type", "{count} Skeleton", "{count} Skeletons", n),
    "snake": lambda n: tnc("monster type", "{count} Snake", "{count} Snakes", n),
}


# The classic game reaches the chapters' rules through this hook (it never imports this module).
game.campaign_rules = sys.modules[__name__]

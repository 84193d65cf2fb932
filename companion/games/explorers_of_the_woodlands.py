"""Explorers of the Woodlands (classic co-operative game): Heroes, the forest and the Boss.

The phones keep what the table finds fiddly: each Hero's HP, orbs, status markers, unique
Powers and Loot; the round, its two phases and whose turn it is; the Forest stack; the Boss's
threat track, which moves by itself after every turn and every round; the monsters defeated.
Dice, tiles and card effects stay on the table: the players tap what happened.

Seats are players, Heroes belong to seats. `heroes` is in turn order: clockwise from the fixed
first player, one Hero per seat, or the solo player's two Heroes. A round gives every Hero a
tile in Phase 1 and a turn in Phase 2, so a solo game runs like a two-player game.

Rulings where the rulebook leaves a gap:
- A knocked-down Hero keeps their place in turn order: their turn starts (so the Campfire can
  stand them up) and ends, and the Boss's threat still rises after it.
- A Hero knocked down during their own turn (Poison at its start included): their turn is over,
  the players tap End turn; the app does not end it for them.
- The rulebook gives no threat-track lengths: the players count the spaces on the Boss card (on
  the Enraged Bosses card when playing with it) and enter the number when the Boss is revealed.
  The cube starts on space 1; the game is lost when it reaches the last space.
- Before the players name the revealed Boss the threat is counted all the same; naming a Boss
  whose track is already used up loses the game at once.
- When the stack is empty at the moment a Phase 1 tile is due, the rest of Phase 1 has no tile
  to place: the Boss is revealed (if it is not yet) and the Adventure phase starts.
- A High-Risk Movement needs a tile: with the stack empty it is refused.
- Unique Powers are unlocked by the active Hero during their turn; a correction (set_powers)
  changes them at any moment without touching orbs.
- The Enraged Monsters card makes every Monster type Enraged (`enraged_types`, the same list a
  campaign fills one type at a time).
- Campaign Mode: a table created with `campaign_start` plays one chapter of a campaign
  (`state["chapter"]`, its counters in `state["quest"]`); the chapter rules live in
  explorers_campaign.py. No chapter is won by a Boss alone: each has its own goal. The
  `chapter` option plays one chapter as a single non-campaign game (`state["campaign"]` None).
- Chapter 5 may hold several Bosses at once: `state["boss"]` is the first still alive, the
  others wait in `quest["more_bosses"]`; every living Boss's threat rises after each turn and
  round, and actions name a Boss by number (`which`, 0 for the first).
- Quest markers (campaign Search) take one of a Hero's 3 equipment slots, however many.
"""

from __future__ import annotations

import json
import random

from .base import (ActionSpec, Param, Rejected, check_action, check_player_count, parse_params,
                   require_step, settle_seat)
from .words import Text, from_data, join_names, player_name, t, tc, tn, to_data

# The campaign's chapter rules (explorers_campaign.py), a layer over this game: that module
# sets itself here as it loads (the games package loads it with this one). This module
# never imports it, so the classic game stands alone and the campaign builds on it.
campaign_rules = None

ID = "explorers-of-the-woodlands"
NAME = "Explorers of the Woodlands"
MIN_PLAYERS = 1
MAX_PLAYERS = 4
RULES_VERSION = 1
# The board's first card says Victory or Defeat and why: the table page does not say it again.
BOARD_SHOWS_ENDING = True

MAX_HP = 5
MAX_ORBS = 10
LOOT_SLOTS = 3
FIRST_POWER_COST = 3
SECOND_POWER_COST = 5
STACK_TILES = 22  # 24 tiles less Start, Boss and Inn set aside, then the Boss tile back in
TRACK_MIN, TRACK_MAX = 2, 30
ENRAGED_THREATS = (5,)
FUNGOR_EXTRA_THREAT = 8

HEROES = ("xylia", "klethor", "shavi", "bethras")
HERO_LABELS = {"xylia": "Xylia", "klethor": "Klethor", "shavi": "Sha'Vi", "bethras": "Bethras"}
HERO_COLORS = {"xylia": "green", "klethor": "purple", "shavi": "blue", "bethras": "orange"}
# The colour of each Hero's pieces, said in the setup checklist.
HERO_COLOR_NAMES = {"xylia": tc("hero colour", "green"), "klethor": tc("hero colour", "purple"),
                    "shavi": tc("hero colour", "blue"), "bethras": tc("hero colour", "orange")}
HERO_POWERS = {
    "xylia": (t("Phase 1: place one extra Forest tile after the last player (once per round)."),
              t("Phase 2: support a Group Combat from one tile away along a path.")),
    "klethor": (t("Phase 2: reroll 1 Combat die during each battle roll."),
                t("Phase 2: reroll any Combat dice once during each battle.")),
    "shavi": (t("Phase 2: turn a used refresh card face up to use it again (once per turn)."),
              t("Phase 1: set one Hero die to any side before rolling the others (once per round).")),
    "bethras": (t("Phase 2: when drawing a card, draw 2 and put 1 back."),
                t("Phase 2: after rerolling, reroll all Hero dice one final time.")),
}

THORNS_CARDS = ("easy", "regular", "difficult")
THORNS_LABELS = {"easy": tc("Thorns card", "Easy"), "regular": tc("Thorns card", "Regular"),
                 "difficult": tc("Thorns card", "Difficult")}

MONSTERS = ("mushroom", "plant", "spirit", "skeleton", "snake")
MONSTER_LABELS = {"mushroom": t("Mushroom"), "plant": t("Plant"), "spirit": t("Spirit"),
                  "skeleton": t("Skeleton"), "snake": t("Snake")}
# The same types as a group ("Mushrooms defeated"): a word of its own in every language.
MONSTER_PLURALS = {"mushroom": t("Mushrooms"), "plant": t("Plants"), "spirit": t("Spirits"),
                   "skeleton": t("Skeletons"), "snake": t("Snakes")}
MONSTER_ICONS = {"mushroom": "🍄", "plant": "🌿", "spirit": "👻", "skeleton": "🦴", "snake": "🐍"}
ENRAGED_MONSTERS = {
    "spirit": t("Put back into play right after its first defeat and fought again at once."),
    "snake": t("Poisons every Hero on its tile who takes part in a battle against it."),
    "skeleton": t("Combat dice cannot be rerolled against it."),
    "plant": t("Gets a Leaf Shield marker when it appears: it absorbs the first successful hit."),
    "mushroom": t("Deals its sword damage before the Hero rolls, whatever the outcome (once per combat)."),
}


def monster_count(kind: str, count: int) -> Text:
    """'1 Mushroom', '3 Mushrooms': a count of one Monster type, as each language says it."""
    return _MONSTER_COUNTS.get(kind, _MONSTER_COUNTS[None])(count)


_MONSTER_COUNTS = {
    "mushroom": lambda n: tn("{count} Mushroom", "{count} Mushrooms", n),
    "plant": lambda n: tn("{count} Plant", "{count} Plants", n),
    "spirit": lambda n: tn("{count} Spirit", "{count} Spirits", n),
    "skeleton": lambda n: tn("{count} Skeleton", "{count} Skeletons", n),
    "snake": lambda n: tn("{count} Snake", "{count} Snakes", n),
    None: lambda n: tn("{count} Monster", "{count} Monsters", n),
}

BOSSES = ("aethera", "venomia", "grimnor", "sylva", "fungor", "other")
BOSS_LABELS = {"aethera": t("Aethera, Warden of Spirits"), "venomia": t("Venomia, Sentinel of Snakes"),
               "grimnor": t("Grimnor, Guardian of Bones"), "sylva": t("Sylva, Keeper of Plants"),
               "fungor": t("Fungor, Lord of Mushrooms"), "other": t("Another Boss")}
# The Enraged Bosses card: what holds from the reveal, and what happens at a threat level.
ENRAGED_BOSS_ALWAYS = {
    "venomia": t("Enraged Venomia permanently has 4 health points."),
    "grimnor": t("Enraged Grimnor's shield has a +1 bonus."),
    "sylva": t("Enraged Sylva starts with a Leaf Shield marker on it."),
    "fungor": t("Enraged Fungor permanently has 4 health points."),
}
ENRAGED_BOSS_AT = {
    ("aethera", 5): t("Threat 5: Enraged Aethera adds a Monster to the Boss's tile."),
    ("venomia", 5): t("Threat 5: Enraged Venomia poisons the Heroes on the Boss's tile "
                      "who are not poisoned yet."),
    ("grimnor", 5): t("Threat 5: Enraged Grimnor adds a Monster to the Boss's tile."),
    ("sylva", 5): t("Threat 5: Enraged Sylva gains another Leaf Shield marker."),
    ("fungor", 5): t("Threat 5: Enraged Fungor does 1 damage to all Heroes taking part in the battle."),
    ("fungor", 8): t("Threat 8: Enraged Fungor does 1 damage to all Heroes taking part in the battle."),
}

MARKERS = ("poison", "thorns")
MARKER_LABELS = {"poison": tc("status marker", "Poison"), "thorns": tc("status marker", "Thorns")}
TILE_KINDS = ("growth", "high_risk", "xylia")
# What revealed a Boss: a Hero on its tile, or (chapter 5) the corruption spreading onto it.
REVEAL_CAUSES = ("tile", "corruption")
REVEALED_BY = {"tile": t("a Hero entered the Boss tile"),
               "corruption": t("the corruption spread to its tile")}
REVEAL_TEXTS = {
    "tile": t("A Hero enters the Boss tile: the Boss is revealed! The blue cube goes on the first "
              "space of its threat track."),
    "corruption": t("The corruption spreads to the Boss's tile: the Boss is revealed at once and "
                    "its threat track is activated (the blue cube on its first space)."),
}
# The same for a second Boss of chapter 5 (explorers_campaign.py): whole sentences of their own.
REVEAL_TEXTS_ANOTHER = {
    "tile": t("A Hero enters the Boss tile: another Boss is revealed! The blue cube goes on the "
              "first space of its threat track."),
    "corruption": t("The corruption spreads to the Boss's tile: another Boss is revealed at once "
                    "and its threat track is activated (the blue cube on its first space)."),
}

PHASE_GROWTH = "growth"
PHASE_ADVENTURE = "adventure"
PHASE_OVER = "over"
PHASE_LABELS = {PHASE_GROWTH: t("Phase 1 · Forest Growth"), PHASE_ADVENTURE: t("Phase 2 · Adventure"),
                PHASE_OVER: t("Game over")}

# A classic game, or one campaign chapter played as a single non-campaign game.
GAME_KINDS = ("classic", "1", "2", "3", "4", "5")

OPTIONS = (
    Param("first_player", "text", label=t("First player"), default="0"),
    Param("hero_1", "text", label=t("Player 1's Hero"), default=""),
    Param("hero_2", "text", label=t("Player 2's Hero"), default=""),
    Param("hero_3", "text", label=t("Player 3's Hero"), default=""),
    Param("hero_4", "text", label=t("Player 4's Hero"), default=""),
    Param("solo_hero", "text", label=t("Solo: the second Hero"), default=""),
    Param("thorns", "choice", label=t("Thorns card"), choices=THORNS_CARDS, default="regular"),
    Param("enraged_monsters", "bool", label=t("Enraged Monsters card"), default=False),
    Param("enraged_bosses", "bool", label=t("Enraged Bosses card"), default=False),
    Param("inn", "bool", label=t("Inn mini-expansion"), default=False),
    Param("lairs", "bool", label=t("Lairs mini-expansion"), default=False),
    Param("chapter", "choice", label=t("Game"), choices=GAME_KINDS, default="classic"),
)

_HERO = Param("hero", "choice", label=t("Hero"), choices=HEROES)
# What the step-advancing actions name, so that a second tap cannot end the next step too.
_TURN_HERO = Param("hero", "choice", label=t("Whose turn ends"), choices=HEROES)
_TILE_HERO = Param("hero", "choice", label=t("Whose Forest Growth tile"), choices=HEROES, optional=True)
_ROUND = Param("round", "int", label=t("Round"), min=1, max=999)
# Chapter 5 may hold several Bosses at once: 0 is the Boss panel's own, 1 on the others.
_WHICH_BOSS = Param("which", "int", label=t("Which Boss"), min=0, max=9, default=0)
CAMPAIGN_COUNTERS = ("mushroom_a", "mushroom_b", "mushroom_c", "vials", "potions",
                     "campfire_monsters", "markers_carried", "markers_lost", "vortex_monsters",
                     "campsites_found",
                     "campsites_empty", "corrupted", "corrupted_spaces", "totems", "bosses_left")
# Wide ranges on purpose: an out-of-range value is refused by the rules with the rulebook's words.
_HP = Param("hp", "int", label=t("HP"), min=-99, max=99)
_ORBS = Param("orbs", "int", label=t("Orbs"), min=-99, max=99)

ACTIONS: dict[str, ActionSpec] = {
    "place_tile": ActionSpec(
        "place_tile", (Param("kind", "choice", label=t("Tile"), choices=TILE_KINDS, default="growth"),
                       _TILE_HERO),
        label=t("Place a Forest tile"), step="hero"),
    "start_adventure": ActionSpec("start_adventure", (_ROUND,), label=t("Start the Adventure phase"),
                                  step="round"),
    "end_turn": ActionSpec("end_turn", (_TURN_HERO,), label=t("End turn"), step="hero"),
    "end_round": ActionSpec("end_round", (_ROUND,), label=t("End round"), step="round"),
    "set_hp": ActionSpec("set_hp", (_HERO, _HP), label=t("Set HP")),
    "set_orbs": ActionSpec("set_orbs", (_HERO, _ORBS), label=t("Set orbs")),
    "set_marker": ActionSpec(
        "set_marker", (_HERO, Param("marker", "choice", label=t("Marker"), choices=MARKERS),
                       Param("on", "bool", label=t("On"), default=False)),
        label=t("Put on or discard a status marker")),
    "concentrate": ActionSpec("concentrate", (_HERO, Param("on", "bool", label=t("On"), default=False)),
                              label=t("Concentration orb")),
    "unlock_power": ActionSpec("unlock_power", (_HERO, Param("both", "bool", label=t("Both Powers"),
                                                             default=False)),
                               label=t("Unlock a unique Power")),
    "set_powers": ActionSpec("set_powers", (_HERO, Param("powers", "int", label=t("Powers unlocked"),
                                                         min=0, max=2)),
                             label=t("Correct the unique Powers")),
    "add_loot": ActionSpec("add_loot", (_HERO, Param("name", "text", label=t("Loot card"), max_length=30)),
                           label=t("Take a Loot card")),
    "remove_loot": ActionSpec("remove_loot", (_HERO, Param("index", "int", label=t("Loot slot"),
                                                           min=0, max=LOOT_SLOTS - 1)),
                              label=t("Discard a Loot card")),
    "give_loot": ActionSpec("give_loot", (_HERO, Param("index", "int", label=t("Loot slot"), min=0,
                                                       max=LOOT_SLOTS - 1),
                                          Param("to", "choice", label=t("To Hero"), choices=HEROES)),
                            label=t("Give a Loot card")),
    "first_aid": ActionSpec("first_aid", (_HERO,), label=t("First Aid")),
    "quest_slot": ActionSpec("quest_slot", (_HERO, Param("on", "bool", label=t("On"), default=False)),
                             label=t("Quest markers in an equipment slot")),
    "reveal_boss": ActionSpec(
        "reveal_boss", (Param("boss", "choice", label=t("Boss"), choices=BOSSES),
                        Param("name", "text", label=t("Boss name"), optional=True, default="",
                              max_length=30),
                        # Optional here only so that an empty field is answered in words.
                        Param("track", "int", label=t("Threat track length"), min=TRACK_MIN,
                              max=TRACK_MAX, optional=True),
                        Param("cause", "choice", label=t("What revealed it"), choices=REVEAL_CAUSES,
                              default="tile")),
        label=t("Reveal the Boss")),
    "threat_up": ActionSpec("threat_up", (_WHICH_BOSS,), label=t("Threat +1")),
    "set_threat": ActionSpec("set_threat", (Param("threat", "int", label=t("Threat"), min=1,
                                                  max=TRACK_MAX), _WHICH_BOSS),
                             label=t("Correct the threat")),
    "defeat_boss": ActionSpec("defeat_boss", (Param("chests", "int", label=t("Chest icons on the "
                                                      "Boss tile and card"), min=0, max=9,
                                                    default=0), _WHICH_BOSS),
                              label=t("The Boss is defeated")),
    "set_stack": ActionSpec("set_stack", (Param("stack", "int", label=t("Tiles in the stack"), min=0,
                                                max=STACK_TILES + 1),),
                            label=t("Correct the Forest stack")),
    "tally": ActionSpec("tally", (Param("kind", "choice", label=t("Monster"), choices=MONSTERS),
                                  Param("count", "int", label=t("Defeated"), min=0, max=99)),
                        label=t("Monsters defeated")),
    # Campaign chapters (explorers_campaign.py): refused on a classic table.
    "quest": ActionSpec("quest", (Param("counter", "choice", label=t("Counter"),
                                        choices=CAMPAIGN_COUNTERS),
                                  Param("value", "int", label=t("Count"), min=-99, max=99)),
                        label=t("Chapter counter")),
    "concoct": ActionSpec("concoct", (_HERO,), label=t("Concoct a potion")),
    "energy_well": ActionSpec("energy_well", (Param("marker_orbs", "int", label=t("Orbs on the Orb "
                                                      "markers"), min=0, max=40, default=0),
                                              *(Param(f"pay_{hero}", "int",
                                                      label=t("Orbs {hero} pays", hero=HERO_LABELS[hero]),
                                                      min=0, max=MAX_ORBS, default=0)
                                                for hero in HEROES)),
                              label=t("Every Hero on the Energy Well")),
    "well_overrun": ActionSpec("well_overrun", (), label=t("A Monster is on the Energy Well")),
    "take_pile": ActionSpec("take_pile", (_HERO, Param("pile", "int", label=t("Loot pile"), min=0,
                                                       max=3),
                                          Param("discard", "text", label=t("Cards to discard"),
                                                optional=True, default="", max_length=20)),
                            label=t("Recover a Loot pile")),
    "burn_pile": ActionSpec("burn_pile", (Param("pile", "int", label=t("Loot pile"), min=0, max=3),),
                            label=t("The deserted campsite burns a pile")),
    "claim_victory": ActionSpec("claim_victory", (), label=t("End the chapter: victory")),
    "cover_space": ActionSpec("cover_space", (), label=t("A tile is placed on a corrupted space")),
    "thief_on_start": ActionSpec("thief_on_start", (), label=t("An Orb Thief on the Start tile")),
}

# The result screen stays correctable for what it shows.
_ALLOWED_WHEN_OVER = ("tally",)

_PRONOUNS = {"xylia": "her", "klethor": "his", "shavi": "her", "bethras": "his"}


# ----------------------------------------------------------------- small utilities


def hero_label(hero_id) -> str:
    return _label(HERO_LABELS, hero_id, t("a Hero"))


def _label(labels: dict, key, fallback: str) -> str:
    """A label for a stored key; never fails on a key of the wrong type."""
    return labels.get(key, fallback) if isinstance(key, str) else fallback


def stack_total(inn: bool) -> int:
    """Tiles in the Forest stack at the start: 22, or 23 with the Inn tile shuffled in."""
    return STACK_TILES + (1 if inn else 0)


def _hero_index(state: dict, hero_id: str) -> int:
    for index, hero in enumerate(state["heroes"]):
        if hero["id"] == hero_id:
            return index
    raise Rejected(t("{hero} is not in this game.", hero=hero_label(hero_id)))


def _hero(state: dict, hero_id: str) -> dict:
    return state["heroes"][_hero_index(state, hero_id)]


def _who(state: dict, hero: dict) -> str:
    """Name a Hero for the events: 'Xylia (Ana)'."""
    return t("{hero} ({player})", hero=hero_label(hero["id"]), player=state["players"][hero["seat"]])


def _active(state: dict) -> dict | None:
    """The Hero whose Adventure turn it is, or None outside a turn."""
    if state["phase"] != PHASE_ADVENTURE or state["turn"] >= len(state["heroes"]):
        return None
    return state["heroes"][state["turn"]]


TIMER_STEP = "turn"


def timer_cue(state: dict):
    """A turn timer: afresh for every Hero's Adventure turn."""
    hero = _active(state)
    if hero is None:
        return None
    return (f"{state['round']}:{state['turn']}",
            t("{hero}'s turn ({player}), round {round}", hero=hero_label(hero["id"]),
              player=state["players"][hero["seat"]], round=state["round"]))

def _require_active(state: dict, hero: dict, doing: str) -> None:
    active = _active(state)
    if active is None:
        raise Rejected(t("{doing} happens during a Hero's Adventure turn.", doing=doing))
    if active["id"] != hero["id"]:
        raise Rejected(t("{doing} is for the active Hero: it is {hero}'s turn.", doing=doing,
                         hero=hero_label(active["id"])))


def _require_seat(state: dict, seat) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(state["players"]):
        raise Rejected(t("That seat is not at this table."))


def tiles_placed(state: dict) -> int:
    return sum(state["placed"].values())


def power_cost(powers: int, both: bool) -> int:
    """Orbs to unlock the next Power (3 for the first, 5 for the second) or both at once (8)."""
    if powers >= 2:
        raise ValueError("both Powers are already unlocked")
    if both:
        if powers != 0:
            raise ValueError("only the second Power is left")
        return FIRST_POWER_COST + SECOND_POWER_COST
    return FIRST_POWER_COST if powers == 0 else SECOND_POWER_COST


def loot_slots(hero: dict) -> int:
    """Loot slots left for cards: Quest markers, however many, take one of the 3 slots."""
    return LOOT_SLOTS - (1 if hero.get("quest_slot") else 0)


def _slots_full(hero: dict) -> Text:
    name = hero_label(hero["id"])
    if hero.get("quest_slot"):
        return t("{hero}'s Loot slots are full: Quest markers take one of the {slots}, "
                 "{cards} hold Loot cards.", hero=name, slots=LOOT_SLOTS, cards=loot_slots(hero))
    return t("{hero}'s {slots} Loot slots are full.", hero=name, slots=LOOT_SLOTS)


def _sentences(*parts) -> Text:
    """Whole sentences said one after the other (each translated on its own)."""
    parts = [part for part in parts if part]
    return Text(" ".join("{s%d}" % index for index in range(len(parts))),
                {f"s{index}": part for index, part in enumerate(parts)})


def _listed(parts, separator: str = "; ") -> Text:
    """Whole phrases listed with punctuation only (nothing in it to translate)."""
    parts = list(parts)
    return Text(separator.join("{p%d}" % index for index in range(len(parts))),
                {f"p{index}": part for index, part in enumerate(parts)})


def _copied(state: dict) -> dict:
    """A deep copy of a state by a JSON round trip, its words kept as Text."""
    return from_data(json.loads(json.dumps(to_data(state))))


def first_aid_cost(state: dict) -> int:
    """First Aid costs as many orbs as there are Heroes in play."""
    return len(state["heroes"])


# ----------------------------------------------------------------- options and setup


def _hero_option(raw: str, label: str) -> str | None:
    text = "".join(ch for ch in str(raw).lower() if ch.isalpha())
    if not text:
        return None
    if text not in HEROES:
        raise Rejected(t("{label}: choose Xylia, Klethor, Sha'Vi or Bethras.", label=label))
    return text


def prepare_options(raw: dict, players: list[str], rng: random.Random) -> dict:
    """Check the setup choices; settle a random first player and any Hero left unchosen."""
    check_player_count(len(players), NAME, MIN_PLAYERS, MAX_PLAYERS)
    values = parse_params(OPTIONS, raw if raw is not None else {}, len(players))
    first = settle_seat(values["first_player"], players, rng, t("First player"))
    wanted = [_hero_option(values[f"hero_{i + 1}"], t("{player}'s Hero", player=players[i]))
              for i in range(len(players))]
    if len(players) == 1:
        wanted.append(_hero_option(values["solo_hero"],
                                   t("{player}'s second Hero", player=players[0])))
    chosen = [hero for hero in wanted if hero]
    for hero in set(chosen):
        if chosen.count(hero) > 1:
            raise Rejected(t("{hero} is chosen twice: each Hero plays at most once.",
                             hero=hero_label(hero)))
    free = [hero for hero in HEROES if hero not in chosen]
    heroes = [hero if hero else free.pop(0) for hero in wanted]
    options = {"first_player": first, "heroes": heroes, "thorns": values["thorns"],
               "enraged_monsters": values["enraged_monsters"],
               "enraged_bosses": values["enraged_bosses"], "inn": values["inn"],
               "lairs": values["lairs"]}
    if isinstance(raw, dict) and raw.get("campaign_start") is not None:
        start = campaign_rules.check_start(raw["campaign_start"], heroes)
        # A chapter's Enraged types come from the campaign, one at a time, not from the card.
        options.update(campaign_start=start, campaign=start["campaign"],
                       chapter=start["chapter"], enraged_monsters=False, inn=False)
    elif values["chapter"] != "classic":
        # One chapter as a single game: no campaign behind it; the Enraged Monsters card
        # Enrages every type as in a classic game.
        start = campaign_rules.standalone_start(
            int(values["chapter"]), heroes, list(MONSTERS) if values["enraged_monsters"] else [])
        options.update(campaign_start=start, campaign=None, chapter=start["chapter"],
                       enraged_monsters=False, inn=False)
    return options


def _check_options(players: list[str], options: dict) -> None:
    first = options.get("first_player")
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < len(players):
        raise Rejected(t("The first player must be one of the seats."))
    heroes = options.get("heroes")
    expected = len(players) + (1 if len(players) == 1 else 0)
    if (not isinstance(heroes, list) or len(heroes) != expected
            or any(h not in HEROES for h in heroes) or len(set(heroes)) != len(heroes)):
        raise Rejected(t("Each seat needs its own Hero (two for a solo player)."))
    if options.get("thorns") not in THORNS_CARDS:
        raise Rejected(t("Choose the Easy, Regular or Difficult Thorns card."))


def setup(players: list[str], options: dict) -> dict:
    """Round 1, Phase 1: every Hero at 5 HP and 0 orbs, the stack full, the Boss hidden."""
    check_player_count(len(players), NAME, MIN_PLAYERS, MAX_PLAYERS)
    _check_options(players, options)
    first = options["first_player"]
    order = [(first + step) % len(players) for step in range(len(players))]
    owners = order if len(players) > 1 else [0, 0]
    heroes = [{"id": options["heroes"][seat if len(players) > 1 else index], "seat": seat,
               "hp": MAX_HP, "orbs": 0, "poison": False, "thorns": False, "powers": 0,
               "concentration": False, "loot": []}
              for index, seat in enumerate(owners)]
    inn = bool(options.get("inn"))
    state = {
        "rules_version": RULES_VERSION,
        "players": list(players),
        "first_player": first,
        "thorns_card": options["thorns"],
        "enraged_bosses": bool(options.get("enraged_bosses")),
        "inn": inn,
        "lairs": bool(options.get("lairs")),
        # Campaign-ready: a campaign Enrages one type at a time; the card Enrages them all.
        "enraged_types": list(MONSTERS) if options.get("enraged_monsters") else [],
        "heroes": heroes,
        "round": 1,
        "phase": PHASE_GROWTH,
        "growth_done": 0,
        "xylia_extra_used": False,
        "turn": 0,
        "stack_total": stack_total(inn),
        "stack": stack_total(inn),
        "placed": {"growth": 0, "high_risk": 0, "xylia": 0, "corrected": 0},
        "boss": {"revealed": False, "key": None, "name": None, "track": None, "threat": 0,
                 "defeated": False},
        "monsters": {kind: 0 for kind in MONSTERS},
        "result": None,
        "events": [],
    }
    start = options.get("campaign_start")
    if start:
        _start_chapter(state, start)
        if campaign_rules.has_growth(state["chapter"]):
            _continue_growth(state)
        else:
            state["growth_done"] = len(state["heroes"])
            _start_adventure(state)
        return state
    _continue_growth(state)
    return state


def _start_chapter(state: dict, start: dict) -> None:
    """A campaign chapter: the Heroes as the campaign left them, the chapter's own counters."""
    campaign_rules.check_start(start, [hero["id"] for hero in state["heroes"]],
                               standalone=start.get("campaign") is None)
    state["campaign"] = start["campaign"]
    state["chapter"] = start["chapter"]
    for hero in state["heroes"]:
        carried = start["carry"][hero["id"]]
        hero.update(hp=carried["hp"], orbs=carried["orbs"], powers=carried["powers"],
                    loot=list(carried["loot"]))
    state["enraged_types"] = list(start["enraged"])
    state["stack_total"] = state["stack"] = campaign_rules.chapter_stack(state["chapter"])
    state["quest"] = campaign_rules.quest_start(start, len(state["heroes"]))
    state["events"].append(t("Chapter {number} · {title}: {goal}", number=state["chapter"],
                             title=campaign_rules.CHAPTER_TITLES[state["chapter"]],
                             goal=campaign_rules.CHAPTER_GOALS[state["chapter"]]))


def setup_checklist(state: dict) -> list[Text]:
    """The setup steps for this table's choices, in the rulebook's order."""
    if state.get("chapter"):
        return campaign_rules.chapter_checklist(state)
    players = state["players"]
    owned = {}
    for hero in state["heroes"]:
        owned.setdefault(hero["seat"], []).append(t("{hero} ({color})", hero=hero_label(hero["id"]),
                                                    color=HERO_COLOR_NAMES[hero["id"]]))
    who = _listed(t("{player}: {heroes}", player=players[seat], heroes=join_names(names))
                  for seat, names in owned.items())
    steps = [
        t("Heroes: {who}. Each takes the Hero board, Power card (slid under the left side), "
          "meeple, a red cube on 5 HP and a blue cube on 0 orbs.", who=who),
        t("Set aside the Start, Boss and Inn tiles; put the Start tile in the middle of the table."),
    ]
    if state["inn"]:
        steps.append(t("Inn: shuffle the Inn tile into the Forest tiles, and the 5 Inn cards face "
                       "down as the Inn pile."))
    steps += [
        t("Shuffle the Forest tiles; remove 2 at random unseen, shuffle them with the Boss tile and "
          "put those 3 at the bottom: the stack holds {tiles} tiles.", tiles=state["stack_total"]),
        t("Shuffle the Monster markers face down as the Monster pile."),
        t("Shuffle the Loot, Event and Boss cards into three face-down stacks."),
        t("Put the markers and dice within reach as the reserve."),
        t("Put the {card} Thorns card face up; the other two go back in the box.",
          card=THORNS_LABELS[state["thorns_card"]]),
    ]
    if state["enraged_types"]:
        steps.append(t("Put the Enraged Monsters card face up: every Monster is Enraged."))
    if state["enraged_bosses"]:
        steps.append(t("Put the Enraged Bosses card face up: use it instead of the threat track on "
                       "the Boss cards."))
    if state["lairs"]:
        steps.append(t("Lairs: shuffle the 4 Lair A and the 4 Lair B cards into two face-down piles."))
    steps.append(t("{player} plays first, every round.", player=players[state["first_player"]]))
    return steps


def setup_notes(n_players: int) -> list[Text]:
    """The setup steps that do not depend on the table's choices."""
    check_player_count(n_players, NAME, MIN_PLAYERS, MAX_PLAYERS)
    notes = [t("Each player chooses a Hero: Xylia, Klethor, Sha'Vi or Bethras, each at most once.")]
    if n_players == 1:
        notes.append(t("Solo: play a two-Hero team; rounds run as in a two-player game."))
    notes.append(t("The Forest stack holds {tiles} tiles ({with_inn} with the Inn), "
                   "the Boss tile among the last three.", tiles=STACK_TILES, with_inn=STACK_TILES + 1))
    return notes


# ----------------------------------------------------------------- apply


def apply(state: dict, action: str, params: dict, seat: int) -> dict:
    """Return the state after `seat` takes `action`; raise Rejected and change nothing."""
    _, parsed = check_action(ACTIONS, action, params if params is not None else {},
                             len(state["players"]))
    _require_seat(state, seat)
    if (state["phase"] == PHASE_OVER and action not in _ALLOWED_WHEN_OVER
            and not campaign_rules.loot_open(state, action)):
        raise Rejected(t("The game is over: undo to change how it ended."))
    # The state is plain JSON by contract (its words as Text), so a JSON round trip of its
    # data is a fast deep copy.
    new_state = _copied(state)
    new_state["events"] = []
    campaign_rules.upgrade_quest(new_state)
    _HANDLERS[action](new_state, parsed, seat)
    return new_state


def _placer(state: dict) -> dict | None:
    if state["phase"] != PHASE_GROWTH or state["growth_done"] >= len(state["heroes"]):
        return None
    return state["heroes"][state["growth_done"]]


def _placer_text(state: dict) -> str:
    hero = _placer(state)
    if hero is None:
        return t("nobody")
    # A solo player places one tile per Hero: say which.
    return _who(state, hero) if len(state["players"]) == 1 else state["players"][hero["seat"]]


def _xylia_extra_open(state: dict) -> bool:
    """Xylia's first Power: one more tile after the last player's, once per round."""
    if state["phase"] != PHASE_GROWTH or state["growth_done"] < len(state["heroes"]):
        return False
    if state["xylia_extra_used"] or state["stack"] == 0:
        return False
    return any(h["id"] == "xylia" and h["powers"] >= 1 for h in state["heroes"])


def _reveal_boss_now(state: dict, line: str, by: str) -> None:
    """Reveal the Boss: the cube on space 1; `by` says what revealed it, for the Boss panel."""
    boss = state["boss"]
    boss["revealed"] = True
    boss["threat"] = 1
    boss["revealed_by"] = by
    state["events"].append(line)
    if state.get("chapter") == 5:
        state["quest"]["boss_tile_revealed"] = True


def boss_tile_waiting(state: dict) -> bool:
    """The Boss tile's Boss is still to be revealed (once only, even after it is defeated)."""
    if state.get("chapter") == 5:
        return not state["quest"]["boss_tile_revealed"] and not state["boss"]["revealed"]
    return not state["boss"]["revealed"]


def boss_hidden_text(state: dict) -> Text:
    """How the hidden Boss comes out, said for this table: chapters 3 and 4 have no stack."""
    chapter = state.get("chapter")
    if chapter == 3:
        return t("The Boss marker lies face down on its tile. The Boss is revealed when a Hero "
                 "enters the Boss tile, or at the end of round 5 at the latest.")
    if chapter == 4:
        return t("The Boss marker lies face down on its tile. The Boss is revealed when a Hero "
                 "enters the Boss tile.")
    if chapter == 5 and not boss_tile_waiting(state):
        return t("The Boss tile's Boss has been revealed. Another Boss is revealed when a Hero "
                 "enters its tile or the corruption spreads to it.")
    if state["stack"] == 0:
        where = t("The stack is empty: the Boss tile is in the forest.")
    elif state["stack"] <= 3:
        where = tn("The Boss tile is among the last {count} tile of the stack.",
                   "The Boss tile is among the last {count} tiles of the stack.", state["stack"])
    else:
        where = t("The Boss tile is among the last three tiles of the stack.")
    if chapter == 5:
        how = t("It is revealed when a Hero enters its tile, when the corruption spreads to it, "
                "or when a tile is due and the stack is empty.")
    else:
        how = t("It is revealed when a Hero enters its tile or when a tile is due and the stack "
                "is empty.")
    return _sentences(where, how)


def _continue_growth(state: dict) -> None:
    """After a tile (or at the start of Phase 1): the next placer, or on to the Adventure."""
    due = state["growth_done"] < len(state["heroes"])
    if due and state["stack"] == 0:
        if not campaign_rules.has_boss_tile(state.get("chapter")):
            state["events"].append(t("The Forest stack is empty: no more tiles to place."))
        elif boss_tile_waiting(state):
            _reveal_boss_now(state, t("The Forest stack is empty and a tile must be added: the "
                                      "Boss is revealed! Put the blue cube on the first space of "
                                      "its threat track, then name the Boss on a phone."),
                            t("the Forest stack was empty when a tile was due"))
        else:
            state["events"].append(t("The Forest stack is empty: no more tiles to place."))
        state["growth_done"] = len(state["heroes"])
        _start_adventure(state)
        return
    if due:
        if state["growth_done"] == 0:
            state["events"].append(t("Round {round} · Forest Growth: {placer} places the first "
                                     "tile.", round=state["round"], placer=_placer_text(state)))
        else:
            state["events"].append(t("Next tile: {placer}.", placer=_placer_text(state)))
        return
    if _xylia_extra_open(state):
        state["events"].append(t("Every player has placed a tile. Xylia may place one extra "
                                 "tile, or start the Adventure."))
        return
    _start_adventure(state)


def step_values(state: dict) -> dict:
    """What each step-advancing action must name now: the Hero or the round it ends."""
    active, placer = _active(state), _placer(state)
    return {"place_tile": placer["id"] if placer else None,
            "start_adventure": state["round"],
            "end_turn": active["id"] if active else None,
            "end_round": state["round"]}


def _now_text(state: dict) -> str:
    """Where the table is, for a refusal of an action meant for a step already gone by."""
    placer, active = _placer(state), _active(state)
    if placer is not None:
        return t("it is now round {round}, {placer} to place a tile", round=state["round"],
                 placer=_placer_text(state))
    if state["phase"] == PHASE_GROWTH:
        return t("it is now round {round}: Xylia may place her extra tile or start the Adventure",
                 round=state["round"])
    if active is not None:
        return t("it is now {hero}'s turn ({player})", hero=hero_label(active["id"]),
                 player=state["players"][active["seat"]])
    return t("every Hero has played round {round}: tap End round", round=state["round"])


def _place_tile(state: dict, params: dict, seat: int) -> None:
    kind = params["kind"]
    if kind == "growth":
        placer = _placer(state)
        named = params["hero"]
        if named is None:
            raise Rejected(t("Name the Hero whose Forest Growth tile this is."))
        placed = (state["phase"] != PHASE_GROWTH
                  or _hero_index(state, named) < state["growth_done"])
        require_step(named, placer["id"] if placer else None,
                     t("{owner}'s tile", owner=_tile_owner(state, named)),
                     _now_text(state), past=placed, done=t("is already placed"))
        if state["stack"] == 0:
            raise Rejected(t("The Forest stack is empty: there is no tile to place."))
        state["stack"] -= 1
        state["placed"]["growth"] += 1
        state["growth_done"] += 1
        state["events"].append(tn("{player} placed a tile: {count} tile left in the stack.",
                                  "{player} placed a tile: {count} tiles left in the stack.",
                                  state["stack"], player=state["players"][placer["seat"]]))
        _continue_growth(state)
    elif kind == "xylia":
        if not any(h["id"] == "xylia" for h in state["heroes"]):
            raise Rejected(t("Xylia is not in this game."))
        if not any(h["id"] == "xylia" and h["powers"] >= 1 for h in state["heroes"]):
            raise Rejected(t("Xylia's extra tile needs her first unique Power unlocked."))
        if state["phase"] != PHASE_GROWTH or state["growth_done"] < len(state["heroes"]):
            raise Rejected(t("Xylia places her extra tile at the end of Phase 1, after the "
                             "last player."))
        if state["xylia_extra_used"]:
            raise Rejected(t("Xylia has already placed her extra tile this round."))
        if state["stack"] == 0:
            raise Rejected(t("The Forest stack is empty: there is no tile to place."))
        state["stack"] -= 1
        state["placed"]["xylia"] += 1
        state["xylia_extra_used"] = True
        state["events"].append(tn("Xylia placed her extra tile: {count} tile left in the stack.",
                                  "Xylia placed her extra tile: {count} tiles left in the stack.",
                                  state["stack"]))
        _start_adventure(state)
    else:
        active = _active(state)
        if active is None:
            raise Rejected(t("A High-Risk Movement happens during a Hero's Adventure turn."))
        if active["hp"] == 0:
            raise Rejected(t("{hero} is knocked down and cannot move.", hero=hero_label(active["id"])))
        if state["stack"] == 0:
            raise Rejected(t("The Forest stack is empty: there is no tile to explore."))
        state["stack"] -= 1
        state["placed"]["high_risk"] += 1
        name = hero_label(active["id"])
        if _gain_orbs(active, 1):
            line = tn("High-Risk Movement by {hero}: +1 orb; {count} tile left in the stack.",
                      "High-Risk Movement by {hero}: +1 orb; {count} tiles left in the stack.",
                      state["stack"], hero=name)
        else:
            line = tn("High-Risk Movement by {hero}: no orb: {hero} already has {most}; {count} "
                      "tile left in the stack.",
                      "High-Risk Movement by {hero}: no orb: {hero} already has {most}; {count} "
                      "tiles left in the stack.", state["stack"], hero=name, most=MAX_ORBS)
        state["events"].append(line)


def _tile_owner(state: dict, hero_id: str) -> str:
    """Who places a Hero's Growth tile: the player, or the Hero for a solo player's two."""
    hero = _hero(state, hero_id)
    return hero_label(hero_id) if len(state["players"]) == 1 else state["players"][hero["seat"]]


def _require_round(state: dict, params: dict, what: str) -> None:
    """`what` is "growth" (the Forest Growth of a round) or "end" (the end of a round)."""
    named = params["round"]
    named_text = (t("the Forest Growth of round {round}", round=named) if what == "growth"
                  else t("the end of round {round}", round=named))
    require_step(named, state["round"], named_text, _now_text(state),
                 past=named < state["round"])


def _start_adventure_action(state: dict, params: dict, seat: int) -> None:
    _require_round(state, params, "growth")
    if state["phase"] != PHASE_GROWTH:
        raise Rejected(t("The Adventure phase has already started."))
    if state["growth_done"] < len(state["heroes"]):
        raise Rejected(t("{placer} still has to place a Forest tile.", placer=_placer_text(state)))
    if _xylia_extra_open(state):
        state["events"].append(t("Xylia places no extra tile this round."))
    _start_adventure(state)


def _start_adventure(state: dict) -> None:
    state["phase"] = PHASE_ADVENTURE
    state["turn"] = 0
    state["events"].append(t("Round {round} · Adventure: turns in seat order.", round=state["round"]))
    _start_turn(state)


def _start_turn(state: dict) -> None:
    """The start of a Hero's turn: Poison costs 1 HP before the dice are rolled."""
    hero = state["heroes"][state["turn"]]
    name = hero_label(hero["id"])
    player = state["players"][hero["seat"]]
    if hero["hp"] == 0:
        state["events"].append(t("{hero}'s turn ({player}): knocked down. On the Campfire, "
                                 "{hero} recovers all HP now; otherwise End turn.",
                                 hero=name, player=player))
        return
    state["events"].append(t("{hero}'s turn ({player}): turn limited-use Loot face up, then roll.",
                             hero=name, player=player))
    if hero["poison"]:
        why = (t("Poison: {hero} loses 1 HP at the start of her turn", hero=name)
               if _PRONOUNS[hero["id"]] == "her" else
               t("Poison: {hero} loses 1 HP at the start of his turn", hero=name))
        _set_hp(state, hero, hero["hp"] - 1, why)


def _gain_orbs(hero: dict, amount: int) -> int:
    gained = max(0, min(amount, MAX_ORBS - hero["orbs"]))
    hero["orbs"] += gained
    return gained


def _set_hp(state: dict, hero: dict, hp: int, why: str) -> None:
    """Change HP; at 0 the Hero is knocked down and discards their status markers at once."""
    was = hero["hp"]
    hero["hp"] = hp
    name = hero_label(hero["id"])
    lines = [t("{why} ({was} → {hp} HP).", why=why, was=was, hp=hp)]
    if hp == 0 and was > 0:
        dropped = [MARKER_LABELS[m] for m in MARKERS if hero[m]]
        for marker in MARKERS:
            hero[marker] = False
        if dropped:
            lines.append(tn("{hero} is knocked down and discards the {markers} marker.",
                            "{hero} is knocked down and discards the {markers} markers.",
                            len(dropped), hero=name, markers=join_names(dropped)))
        else:
            lines.append(t("{hero} is knocked down.", hero=name))
        if _active(state) is hero:
            lines.append(t("Her turn is over: tap End turn.") if _PRONOUNS[hero["id"]] == "her"
                         else t("His turn is over: tap End turn."))
    elif was == 0 and hp > 0:
        lines.append(t("{hero} stands up.", hero=name))
    state["events"].append(_sentences(*lines))
    if all(h["hp"] == 0 for h in state["heroes"]):
        _finish(state, "lost", t("Every Hero is knocked down at the same time."))


def live_bosses(state: dict) -> list[tuple[int, dict]]:
    """The Bosses whose threat rises, by number: 0 the Boss panel's own, then (chapter 5 only)
    the other Bosses revealed while it lives."""
    boss = state["boss"]
    if not boss["revealed"] or boss["defeated"]:
        return []
    more = state["quest"].get("more_bosses", []) if state.get("chapter") == 5 else []
    return [(0, boss)] + list(enumerate(more, 1))


def _threat_up(state: dict, why: str, which: int | None = None) -> None:
    """Move each living Boss's cube one space on (or Boss `which`'s only, for a Combat skill);
    a track's last space loses the game."""
    bosses = live_bosses(state)
    for index, boss in bosses:
        if state["phase"] == PHASE_OVER:
            return
        if which is not None and index != which:
            continue
        boss["threat"] += 1
        track, now = boss["track"], boss["threat"]
        if len(bosses) > 1:
            line = (t("Threat +1 for {boss}: {why} (now {threat} of {track}).", boss=boss["name"],
                      why=why, threat=now, track=track) if track else
                    t("Threat +1 for {boss}: {why} (now {threat}).", boss=boss["name"], why=why,
                      threat=now))
        else:
            line = (t("Threat +1: {why} (now {threat} of {track}).", why=why, threat=now,
                      track=track) if track else
                    t("Threat +1: {why} (now {threat}).", why=why, threat=now))
        state["events"].append(line)
        reminder = (ENRAGED_BOSS_AT.get((boss["key"], boss["threat"]))
                    if state["enraged_bosses"] else None)
        if reminder:
            state["events"].append(reminder)
        _check_track(state, boss)


def _check_track(state: dict, boss: dict | None = None) -> None:
    boss = boss or state["boss"]
    if boss["track"] and boss["threat"] >= boss["track"]:
        boss["threat"] = boss["track"]
        _finish(state, "lost",
                t("The Boss's threat reached the last space of its track ({track}).",
                  track=boss["track"]) if boss is state["boss"] else
                t("{boss}'s threat reached the last space of its track ({track}).",
                  boss=boss["name"], track=boss["track"]))


def _which_boss(state: dict, which: int) -> dict:
    """Boss number `which` among the living (0: the Boss panel's own), or a clear refusal."""
    for index, boss in live_bosses(state):
        if index == which:
            return boss
    if which == 0:
        raise Rejected(t("The Boss is not revealed yet: there is no threat track."))
    raise Rejected(t("There is no Boss number {number} in the forest.", number=which + 1))


def _finish(state: dict, outcome: str, reason: str) -> None:
    if state["phase"] == PHASE_OVER:
        return
    if outcome == "lost" and campaign_rules.victory_stands(state):
        # Chapter 4: playing on for the 4th campsite cannot undo the victory achieved.
        outcome, reason = "won", campaign_rules.victory_text(
            state, t("{reason} The victory achieved with 3 campsites empty at the same time "
                     "stands.", reason=reason))
    state["phase"] = PHASE_OVER
    state["result"] = {"outcome": outcome, "reason": reason, "rounds": state["round"],
                       "threat": state["boss"]["threat"] if state["boss"]["revealed"] else None}
    state["events"].append(t("Victory! {reason}", reason=reason) if outcome == "won"
                           else t("Defeat. {reason}", reason=reason))
    waiting = campaign_rules.loot_waiting(state) if outcome == "won" else None
    if waiting:
        state["events"].append(waiting)


def _end_turn(state: dict, params: dict, seat: int) -> None:
    if state["phase"] == PHASE_GROWTH:
        raise Rejected(t("It is Phase 1 (Forest Growth): the turns start once every tile is placed."))
    hero = _active(state)
    named = params["hero"]
    require_step(named, hero["id"] if hero else None, t("{hero}'s turn", hero=hero_label(named)),
                 _now_text(state), past=_hero_index(state, named) < state["turn"])
    name = hero_label(hero["id"])
    player = state["players"][hero["seat"]]
    if hero["concentration"]:
        hero["concentration"] = False
        if _gain_orbs(hero, 1):
            state["events"].append(t("Concentration: {hero} gains 1 orb (now {orbs}).", hero=name,
                                     orbs=hero["orbs"]))
        else:
            state["events"].append(t("Concentration: {hero} already has {most} orbs, no orb gained.",
                                     hero=name, most=MAX_ORBS))
    state["events"].append(t("{hero}'s turn ends.", hero=name))
    _threat_up(state, t("end of {player}'s turn", player=player) if len(state["players"]) > 1
               else t("end of {hero}'s turn", hero=name))
    if state["phase"] == PHASE_OVER:
        return
    state["turn"] += 1
    if state["turn"] < len(state["heroes"]):
        _start_turn(state)
    else:
        state["events"].append(t("Every Hero has played: tap End round to finish round {round}.",
                                 round=state["round"]))


def _end_round(state: dict, params: dict, seat: int) -> None:
    _require_round(state, params, "end")
    if state["phase"] == PHASE_GROWTH:
        raise Rejected(t("It is Phase 1 (Forest Growth): place the tiles, then play the turns."))
    left = state["heroes"][state["turn"]:]
    if left:
        raise Rejected(t("Still to play this round: {heroes}. End their turns first.",
                         heroes=join_names(hero_label(h["id"]) for h in left)))
    _threat_up(state, t("end of round {round}", round=state["round"]))
    if state["phase"] == PHASE_OVER:
        return
    if state.get("chapter"):
        campaign_rules.after_round(state, state["round"])
    state["round"] += 1
    state["phase"] = PHASE_GROWTH
    state["growth_done"] = 0
    state["xylia_extra_used"] = False
    state["turn"] = 0
    if state.get("chapter") and not campaign_rules.has_growth(state["chapter"]):
        state["growth_done"] = len(state["heroes"])
        _start_adventure(state)
        return
    _continue_growth(state)


def _hp_action(state: dict, params: dict, seat: int) -> None:
    hero = _hero(state, params["hero"])
    hp = params["hp"]
    name = hero_label(hero["id"])
    if hp > MAX_HP:
        raise Rejected(t("A Hero's HP can never exceed {most}.", most=MAX_HP))
    if hp < 0:
        raise Rejected(t("HP cannot go below 0: at 0 {hero} is knocked down.", hero=name))
    if hp == hero["hp"]:
        raise Rejected(t("{hero} already has {hp} HP.", hero=name, hp=hp))
    _set_hp(state, hero, hp, t("{hero}: HP set to {hp}", hero=name, hp=hp))


def _orbs_action(state: dict, params: dict, seat: int) -> None:
    hero = _hero(state, params["hero"])
    orbs = params["orbs"]
    name = hero_label(hero["id"])
    if orbs > MAX_ORBS:
        raise Rejected(t("A Hero can never have more than {most} orbs.", most=MAX_ORBS))
    if orbs < 0:
        raise Rejected(t("Orbs cannot go below 0: {hero} has {orbs}.", hero=name, orbs=hero["orbs"]))
    hero["orbs"] = orbs


def _marker_action(state: dict, params: dict, seat: int) -> None:
    hero = _hero(state, params["hero"])
    marker, on = params["marker"], params["on"]
    name = hero_label(hero["id"])
    label = MARKER_LABELS[marker]
    if on:
        if hero["hp"] == 0:
            raise Rejected(t("{hero} is knocked down: a knocked-down Hero has no status markers.",
                             hero=name))
        if hero[marker]:
            raise Rejected(t("{hero} already has a {marker} marker: a Hero holds at most one.",
                             hero=name, marker=label))
    elif not hero[marker]:
        raise Rejected(t("{hero} has no {marker} marker.", hero=name, marker=label))
    hero[marker] = on


def _concentrate(state: dict, params: dict, seat: int) -> None:
    hero = _hero(state, params["hero"])
    _require_active(state, hero, t("Concentration"))
    name = hero_label(hero["id"])
    if params["on"] and hero["hp"] == 0:
        raise Rejected(t("{hero} is knocked down: no dice to place this turn.", hero=name))
    if params["on"] == hero["concentration"]:
        raise Rejected(t("{hero} already has a Concentration orb due.", hero=name) if params["on"]
                       else t("{hero} has no Concentration orb due.", hero=name))
    hero["concentration"] = params["on"]
    if params["on"]:
        state["events"].append(t("Concentration: {hero} gains 1 orb at the end of this turn.",
                                 hero=name))


def _unlock_power(state: dict, params: dict, seat: int) -> None:
    hero = _hero(state, params["hero"])
    name = hero_label(hero["id"])
    if hero["powers"] >= 2:
        raise Rejected(t("{hero} has already unlocked both unique Powers.", hero=name))
    both = params["both"]
    if both and hero["powers"] == 1:
        raise Rejected(t("{hero}'s first Power is already unlocked: only the second is left "
                         "({cost} orbs).", hero=name, cost=SECOND_POWER_COST))
    _require_active(state, hero, t("Unlocking a unique Power"))
    if hero["hp"] == 0:
        raise Rejected(t("{hero} is knocked down and is not an active Hero.", hero=name))
    cost = power_cost(hero["powers"], both)
    if hero["orbs"] < cost:
        orbs = hero["orbs"]
        if both:
            refusal = tn("{hero} has {count} orb; both Powers costs {cost}.",
                         "{hero} has {count} orbs; both Powers costs {cost}.", orbs, hero=name, cost=cost)
        elif hero["powers"] == 0:
            refusal = tn("{hero} has {count} orb; the first Power costs {cost}.",
                         "{hero} has {count} orbs; the first Power costs {cost}.", orbs, hero=name,
                         cost=cost)
        else:
            refusal = tn("{hero} has {count} orb; the second Power costs {cost}.",
                         "{hero} has {count} orbs; the second Power costs {cost}.", orbs, hero=name,
                         cost=cost)
        raise Rejected(refusal)
    hero["orbs"] -= cost
    hero["powers"] = 2 if both else hero["powers"] + 1
    left = hero["orbs"]
    if both:
        line = t("{hero} unlocks both unique Powers for {cost} orbs ({left} left): slide the Power "
                 "card to the left.", hero=name, cost=cost, left=left)
    elif hero["powers"] == 1:
        line = t("{hero} unlocks the first unique Power for {cost} orbs ({left} left): slide the "
                 "Power card to the left.", hero=name, cost=cost, left=left)
    else:
        line = t("{hero} unlocks the second unique Power for {cost} orbs ({left} left): slide the "
                 "Power card to the left.", hero=name, cost=cost, left=left)
    state["events"].append(line)


def _set_powers(state: dict, params: dict, seat: int) -> None:
    hero = _hero(state, params["hero"])
    if params["powers"] == hero["powers"]:
        raise Rejected(t("{hero} already has {powers} unlocked.", hero=hero_label(hero["id"]),
                         powers=params["powers"]))
    hero["powers"] = params["powers"]


def _add_loot(state: dict, params: dict, seat: int) -> None:
    hero = _hero(state, params["hero"])
    name = params["name"]
    if not name:
        raise Rejected(t("Type the Loot card's name."))
    if len(hero["loot"]) >= loot_slots(hero):
        raise Rejected(_sentences(_slots_full(hero),
                                  t("Discard one first (a new card replaces one of them).")))
    hero["loot"].append(name)
    campaign_rules.chest_drawn(state)


def _loot_at(hero: dict, index: int) -> str:
    if index >= len(hero["loot"]):
        if not hero["loot"]:
            raise Rejected(t("{hero} has no Loot cards.", hero=hero_label(hero["id"])))
        raise Rejected(tn("{hero} has {count} Loot card.", "{hero} has {count} Loot cards.",
                          len(hero["loot"]), hero=hero_label(hero["id"])))
    return hero["loot"][index]


def _remove_loot(state: dict, params: dict, seat: int) -> None:
    hero = _hero(state, params["hero"])
    _loot_at(hero, params["index"])
    del hero["loot"][params["index"]]


def _give_loot(state: dict, params: dict, seat: int) -> None:
    giver = _hero(state, params["hero"])
    card = _loot_at(giver, params["index"])
    taker = _hero(state, params["to"])
    if taker is giver:
        raise Rejected(t("{hero} already holds {card}.", hero=hero_label(giver["id"]), card=card))
    if len(taker["loot"]) >= loot_slots(taker):
        raise Rejected(_slots_full(taker))
    del giver["loot"][params["index"]]
    taker["loot"].append(card)


def _quest_slot(state: dict, params: dict, seat: int) -> None:
    """Search: a Quest marker goes face up on one of the Hero's 3 equipment slots."""
    _need_campaign(state)
    hero = _hero(state, params["hero"])
    name = hero_label(hero["id"])
    on = params["on"]
    if on == bool(hero.get("quest_slot")):
        raise Rejected(t("{hero} already has a slot of Quest markers.", hero=name) if on
                       else t("{hero} holds no Quest markers.", hero=name))
    if on and len(hero["loot"]) >= LOOT_SLOTS:
        raise Rejected(t("{hero}'s {slots} slots hold Loot cards: discard one to free up a "
                         "slot for the Quest markers, or leave the marker on its tile.",
                         hero=name, slots=LOOT_SLOTS))
    hero["quest_slot"] = on
    state["events"].append(t("{hero}'s Quest markers take one equipment slot: {slots} left for "
                             "Loot cards.", hero=name, slots=loot_slots(hero)) if on else
                           t("{hero} holds no more Quest markers: the slot is free again.", hero=name))


def _first_aid(state: dict, params: dict, seat: int) -> None:
    target = _hero(state, params["hero"])
    name = hero_label(target["id"])
    active = _active(state)
    if active is None:
        raise Rejected(t("First Aid is given by the active Hero during their Adventure turn."))
    helper = hero_label(active["id"])
    if target["hp"] > 0:
        raise Rejected(t("{hero} is not knocked down.", hero=name))
    if active is target:
        raise Rejected(t("{hero} cannot give First Aid to herself.", hero=name)
                       if _PRONOUNS[target["id"]] == "her" else
                       t("{hero} cannot give First Aid to himself.", hero=name))
    if active["hp"] == 0:
        raise Rejected(t("{hero} is knocked down and cannot give First Aid.", hero=helper))
    cost = first_aid_cost(state)
    if active["orbs"] < cost:
        raise Rejected(t("First Aid costs {cost} orbs (one per Hero in play); {hero} has {orbs}.",
                         cost=cost, hero=helper, orbs=active["orbs"]))
    active["orbs"] -= cost
    state["events"].append(t("First Aid: {hero} spends {cost} orbs ({left} left).", hero=helper,
                             cost=cost, left=active["orbs"]))
    _set_hp(state, target, 1, t("{hero} is given First Aid", hero=name))


def _reveal_boss(state: dict, params: dict, seat: int) -> None:
    boss = state["boss"]
    if not campaign_rules.has_boss_tile(state.get("chapter")):
        raise Rejected(t("There is no Boss in chapter {number}.", number=state["chapter"]))
    if params["track"] is None:
        raise Rejected(t("Threat track length missing: type how many spaces the Boss's threat "
                         "track has (printed on its card), {low} to {high}.", low=TRACK_MIN,
                         high=TRACK_MAX))
    key = params["boss"]
    name = params["name"] if key == "other" and params["name"] else BOSS_LABELS[key]
    if params["cause"] == "corruption" and state.get("chapter") != 5:
        raise Rejected(t("Only in chapter 5 does the corruption reveal a Boss."))
    if boss["key"] and state.get("chapter") == 5 and not boss["defeated"]:
        # "There may be more than one in this level": each gets its own track.
        campaign_rules.another_boss(state, key, name, params["track"], params["cause"])
        return
    if boss["key"]:
        raise Rejected(t("The Boss is already revealed: {boss}.", boss=boss["name"]))
    if not boss["revealed"]:
        _reveal_boss_now(state, REVEAL_TEXTS[params["cause"]], REVEALED_BY[params["cause"]])
    boss["key"], boss["name"], boss["track"] = key, name, params["track"]
    state["events"].append(t("The Boss is {boss}: threat {threat} of {track}.", boss=name,
                             threat=boss["threat"], track=boss["track"]))
    if state["enraged_bosses"] and key in ENRAGED_BOSS_ALWAYS:
        state["events"].append(ENRAGED_BOSS_ALWAYS[key])
    if state.get("chapter") == 5:
        campaign_rules.boss_found(state)
    _check_track(state)


def _threat_action(state: dict, params: dict, seat: int) -> None:
    _which_boss(state, params["which"])
    _threat_up(state, t("a Boss Combat skill"), params["which"])


def _set_threat(state: dict, params: dict, seat: int) -> None:
    if params["which"]:
        boss = _which_boss(state, params["which"])
    elif state["boss"]["revealed"]:
        boss = state["boss"]
    else:
        raise Rejected(t("The Boss is not revealed yet: there is no threat track."))
    threat = params["threat"]
    if boss["track"] and threat > boss["track"]:
        raise Rejected(t("The track has {track} spaces.", track=boss["track"]))
    boss["threat"] = threat
    state["events"].append(t("Threat set to {threat} for {boss}.", threat=threat, boss=boss["name"])
                           if params["which"] else t("Threat set to {threat}.", threat=threat))
    _check_track(state, boss)


def _defeat_boss(state: dict, params: dict, seat: int) -> None:
    boss = state["boss"]
    if not boss["revealed"]:
        raise Rejected(t("The Boss is not revealed yet: find its tile first."))
    if params["which"]:
        _which_boss(state, params["which"])
    if params["chests"] and state.get("campaign") is None:
        raise Rejected(t("Ignore the chest icons on the Boss tile and Boss cards unless you are "
                         "playing Campaign mode."))
    if state.get("chapter"):
        campaign_rules.boss_defeated(state, params["chests"], params["which"])
        return
    boss["defeated"] = True
    _finish(state, "won",
            t("{boss} is defeated: the Woodlands are saved!", boss=boss["name"]) if boss["name"]
            else t("The Boss is defeated: the Woodlands are saved!"))


def _set_stack(state: dict, params: dict, seat: int) -> None:
    stack = params["stack"]
    if campaign_rules.counts_own_stack(state, tiles_placed(state)):
        # Chapters 1 and 2 leave out Lair tiles the rulebook does not count: the players'
        # count before the first tile is drawn is the stack the app counts from.
        most = campaign_rules.chapter_stack(state["chapter"])
        if stack > most:
            raise Rejected(t("This chapter's Forest stack holds at most {most} tiles.", most=most))
        state["stack_total"] = state["stack"] = stack
        state["events"].append(tn("Forest stack counted: {count} tile.",
                                  "Forest stack counted: {count} tiles.", stack))
    else:
        if stack > state["stack_total"]:
            raise Rejected(t("The stack started with {tiles} tiles.", tiles=state["stack_total"]))
        state["placed"]["corrected"] += state["stack"] - stack
        state["stack"] = stack
        state["events"].append(tn("Forest stack set to {count} tile.",
                                  "Forest stack set to {count} tiles.", stack))
    if _placer(state) is not None and stack == 0:
        _continue_growth(state)  # a tile is due and there is none: the rule applies now


def _tally(state: dict, params: dict, seat: int) -> None:
    state["monsters"][params["kind"]] = params["count"]
    if state.get("chapter") == 3 and state["phase"] != PHASE_OVER:
        campaign_rules.check_chapter_3(state)


def _need_campaign(state: dict) -> None:
    if not state.get("chapter"):
        raise Rejected(t("That belongs to a campaign chapter; this is a classic game."))


def _quest(state: dict, params: dict, seat: int) -> None:
    _need_campaign(state)
    campaign_rules.set_counter(state, params["counter"], params["value"])


def _concoct(state: dict, params: dict, seat: int) -> None:
    _need_campaign(state)
    campaign_rules.concoct(state, params["hero"])


def _energy_well(state: dict, params: dict, seat: int) -> None:
    _need_campaign(state)
    campaign_rules.energy_well(state, params["marker_orbs"],
                               {hero: params[f"pay_{hero}"] for hero in HEROES})


def _well_overrun(state: dict, params: dict, seat: int) -> None:
    _need_campaign(state)
    campaign_rules.well_overrun(state)


def _take_pile(state: dict, params: dict, seat: int) -> None:
    _need_campaign(state)
    campaign_rules.take_pile(state, params["hero"], params["pile"], params["discard"])


def _burn_pile(state: dict, params: dict, seat: int) -> None:
    _need_campaign(state)
    campaign_rules.burn_pile(state, params["pile"])


def _claim_victory(state: dict, params: dict, seat: int) -> None:
    _need_campaign(state)
    campaign_rules.claim_victory(state)


def _thief_on_start(state: dict, params: dict, seat: int) -> None:
    _need_campaign(state)
    campaign_rules.thief_on_start(state)


def _cover_space(state: dict, params: dict, seat: int) -> None:
    _need_campaign(state)
    campaign_rules.cover_space(state)


_HANDLERS = {
    "place_tile": _place_tile,
    "start_adventure": _start_adventure_action,
    "end_turn": _end_turn,
    "end_round": _end_round,
    "set_hp": _hp_action,
    "set_orbs": _orbs_action,
    "set_marker": _marker_action,
    "concentrate": _concentrate,
    "unlock_power": _unlock_power,
    "set_powers": _set_powers,
    "add_loot": _add_loot,
    "remove_loot": _remove_loot,
    "give_loot": _give_loot,
    "first_aid": _first_aid,
    "quest_slot": _quest_slot,
    "reveal_boss": _reveal_boss,
    "threat_up": _threat_action,
    "set_threat": _set_threat,
    "defeat_boss": _defeat_boss,
    "set_stack": _set_stack,
    "tally": _tally,
    "quest": _quest,
    "concoct": _concoct,
    "energy_well": _energy_well,
    "well_overrun": _well_overrun,
    "take_pile": _take_pile,
    "burn_pile": _burn_pile,
    "claim_victory": _claim_victory,
    "cover_space": _cover_space,
    "thief_on_start": _thief_on_start,
}


# ----------------------------------------------------------------- view and log


def view(state: dict, seat: int | None) -> dict:
    """Return what `seat` may see: the whole game is public."""
    if state.get("chapter") and campaign_rules.needs_upgrade(state):
        state = _copied(state)
        campaign_rules.upgrade_quest(state)
    players = state["players"]
    is_seat = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players)
    active = _active(state)
    placer = _placer(state)
    hero_count = len(state["heroes"])
    heroes = []
    for index, hero in enumerate(state["heroes"]):
        heroes.append({
            "id": hero["id"],
            "label": hero_label(hero["id"]),
            "color": HERO_COLORS[hero["id"]],
            "seat": hero["seat"],
            "owner": players[hero["seat"]],
            "mine": is_seat and hero["seat"] == seat,
            "hp": hero["hp"],
            "orbs": hero["orbs"],
            "down": hero["hp"] == 0,
            "poison": hero["poison"],
            "thorns": hero["thorns"],
            "powers": hero["powers"],
            "power_texts": list(HERO_POWERS[hero["id"]]),
            "next_power_cost": (None if hero["powers"] >= 2 else
                                power_cost(hero["powers"], False)),
            "both_powers_cost": power_cost(0, True) if hero["powers"] == 0 else None,
            "concentration": hero["concentration"],
            "loot": list(hero["loot"]),
            "quest_slot": bool(hero.get("quest_slot")),
            "loot_slots": loot_slots(hero),
            "active": active is hero,
            "placing": placer is hero,
            "played": state["phase"] == PHASE_ADVENTURE and index < state["turn"],
        })
    boss = {"revealed_by": None, **state["boss"]}
    monsters = [{"kind": kind, "label": MONSTER_LABELS[kind], "many": MONSTER_PLURALS[kind],
                 "icon": MONSTER_ICONS[kind],
                 "count": state["monsters"][kind], "enraged": kind in state["enraged_types"],
                 "enraged_text": ENRAGED_MONSTERS[kind]} for kind in MONSTERS]
    result = dict(state["result"]) if state["result"] else None
    if result:
        result["monsters"] = sum(state["monsters"].values())
    reminders = []
    if state["enraged_bosses"] and boss["key"]:
        if boss["key"] in ENRAGED_BOSS_ALWAYS:
            reminders.append(ENRAGED_BOSS_ALWAYS[boss["key"]])
        # What is still to come on the track; a level already reached was announced then.
        reminders += [text for (key, level), text in ENRAGED_BOSS_AT.items()
                      if key == boss["key"] and level > boss["threat"]]
    return {
        "game": ID,
        "seat": seat if is_seat else None,
        "players": list(players),
        "first_player": state["first_player"],
        "round": state["round"],
        "phase": state["phase"],
        "phase_label": PHASE_LABELS[state["phase"]],
        "heroes": heroes,
        "active": active["id"] if active else None,
        "active_owner": players[active["seat"]] if active else None,
        "placer": placer["id"] if placer else None,
        "placer_owner": players[placer["seat"]] if placer else None,
        "growth_done": state["growth_done"] if state["phase"] == PHASE_GROWTH else hero_count,
        "growth_due": hero_count,
        "xylia_extra_open": _xylia_extra_open(state),
        "round_done": state["phase"] == PHASE_ADVENTURE and active is None,
        "stack": state["stack"],
        "stack_total": state["stack_total"],
        "tiles_placed": tiles_placed(state),
        "placed": dict(state["placed"]),
        "boss_in_last_three": 0 < state["stack"] <= 3 and boss_tile_waiting(state),
        "boss_hidden_text": boss_hidden_text(state),
        "more_bosses": [{"which": index, **dict(other)} for index, other in live_bosses(state)
                        if index > 0],
        "reveal_causes": list(REVEAL_CAUSES) if state.get("chapter") == 5 else ["tile"],
        "boss": boss,
        "boss_choices": [{"key": key, "label": BOSS_LABELS[key]} for key in BOSSES],
        "boss_reminders": reminders,
        "first_aid_cost": first_aid_cost(state),
        "thorns_card": THORNS_LABELS[state["thorns_card"]],
        "enraged_bosses": state["enraged_bosses"],
        "enraged_types": list(state["enraged_types"]),
        "inn": state["inn"],
        "lairs": state["lairs"],
        "monsters": monsters,
        "monsters_total": sum(state["monsters"].values()),
        "result": result,
        "game_over": state["phase"] == PHASE_OVER,
        "setup_checklist": setup_checklist(state),
        "steps": step_values(state),
        "chapter": campaign_rules.quest_view(state),
        "events": list(state["events"]),
    }


def secret_open(state: dict, seat: int) -> bool:
    """Tell whether `seat` has an unrevealed secret: never, in this co-operative game."""
    return False


def describe(action: str, params: dict, seat: int, players: list[str]) -> Text:
    """Write one public log line."""
    params = params if isinstance(params, dict) else {}
    who = player_name(players, seat)
    hero = hero_label(params.get("hero"))
    if action == "place_tile":
        kind = params.get("kind")
        if kind == "high_risk":
            return t("{who} logged a High-Risk Movement tile", who=who)
        if kind == "xylia":
            return t("{who} logged Xylia's extra tile", who=who)
        return t("{who} placed a Forest tile", who=who)
    if action == "start_adventure":
        return t("{who} started the Adventure phase", who=who)
    if action == "end_turn":
        return t("{who} ended the turn", who=who)
    if action == "end_round":
        return t("{who} ended the round", who=who)
    if action == "set_hp":
        return t("{who} set {hero}'s HP to {hp}", who=who, hero=hero, hp=params.get("hp"))
    if action == "set_orbs":
        return t("{who} set {hero}'s orbs to {orbs}", who=who, hero=hero, orbs=params.get("orbs"))
    if action == "set_marker":
        label = _label(MARKER_LABELS, params.get("marker"), t("status"))
        return (t("{who} gave {hero} a {marker} marker", who=who, hero=hero, marker=label)
                if params.get("on")
                else t("{who} discarded {hero}'s {marker} marker", who=who, hero=hero, marker=label))
    if action == "concentrate":
        return (t("{who} placed {hero}'s Concentration die", who=who, hero=hero) if params.get("on")
                else t("{who} took back {hero}'s Concentration die", who=who, hero=hero))
    if action == "unlock_power":
        return (t("{who} unlocked both unique Power for {hero}", who=who, hero=hero)
                if params.get("both") else
                t("{who} unlocked a unique Power for {hero}", who=who, hero=hero))
    if action == "set_powers":
        return t("{who} corrected {hero}'s unique Powers to {powers}", who=who, hero=hero,
                 powers=params.get("powers"))
    if action == "add_loot":
        return t("{who} gave {hero} the Loot card {card}", who=who, hero=hero, card=params.get("name"))
    if action == "remove_loot":
        return t("{who} discarded a Loot card of {hero}'s", who=who, hero=hero)
    if action == "give_loot":
        return t("{who} passed a Loot card from {hero} to {to}", who=who, hero=hero,
                 to=hero_label(params.get("to")))
    if action == "first_aid":
        return t("{who} stood {hero} up with First Aid", who=who, hero=hero)
    if action == "quest_slot":
        return (t("{who} put {hero}'s Quest markers in an equipment slot", who=who, hero=hero)
                if params.get("on") else
                t("{who} freed {hero}'s Quest marker slot", who=who, hero=hero))
    if action == "reveal_boss":
        key = params.get("boss")
        name = (params.get("name") if key == "other" and params.get("name")
                else _label(BOSS_LABELS, key, t("a Boss")))
        return t("{who} revealed the Boss: {boss}, track of {track}", who=who, boss=name,
                 track=params.get("track"))
    if action == "threat_up":
        return t("{who} moved the threat +1 (Combat skill)", who=who)
    if action == "set_threat":
        return t("{who} corrected the threat to {threat}", who=who, threat=params.get("threat"))
    if action == "defeat_boss":
        return t("{who} marked the Boss defeated", who=who)
    if action == "set_stack":
        return t("{who} corrected the Forest stack to {stack}", who=who, stack=params.get("stack"))
    if action == "tally":
        label = _label(MONSTER_PLURALS, params.get("kind"), t("Monsters"))
        return t("{who} set {monsters} defeated to {count}", who=who, monsters=label,
                 count=params.get("count"))
    if action == "quest":
        label = _label(campaign_rules.COUNTER_LABELS, params.get("counter"), t("a chapter counter"))
        return t("{who} set {counter} to {value}", who=who, counter=label, value=params.get("value"))
    if action == "concoct":
        return t("{who} made a potion with {hero}", who=who, hero=hero)
    if action == "energy_well":
        return t("{who} brought every Hero to the Energy Well", who=who)
    if action == "take_pile":
        pile = params.get("pile")
        number = pile + 1 if isinstance(pile, int) and not isinstance(pile, bool) else "?"
        return t("{who} recovered Loot pile {number} for {hero}", who=who, number=number, hero=hero)
    if action == "burn_pile":
        return t("{who} logged a Loot pile burnt at the deserted campsite", who=who)
    if action == "well_overrun":
        return t("{who} saw a Monster on the Energy Well at the end of the round", who=who)
    if action == "claim_victory":
        return t("{who} ended the chapter with the equipment recovered", who=who)
    if action == "thief_on_start":
        return t("{who} logged an Orb marker lost on the Start tile", who=who)
    if action == "cover_space":
        return t("{who} logged a tile placed on a corrupted space", who=who)
    spec = ACTIONS.get(action)
    return t("{who}: {action}", who=who, action=spec.label if spec else action)


def outcome(state: dict) -> dict | None:
    """The team's result for the history: won or lost, at which chapter or Thorns card."""
    result = state.get("result")
    if state["phase"] != PHASE_OVER or not result:
        return None
    won = result["outcome"] == "won"
    chapter = state.get("chapter")
    level = (t("Chapter {number} · {title}", number=chapter,
               title=campaign_rules.CHAPTER_TITLES[chapter]) if chapter
             else t("{card} Thorns", card=THORNS_LABELS[state["thorns_card"]]))
    return {
        "cooperative": True,
        "won": won,
        "level": level,
        "players": [{"seat": seat, "name": name, "score": None, "place": None, "winner": won}
                    for seat, name in enumerate(state["players"])],
        "rounds": result["rounds"],
        "score_by_round": None,
        "summary": (t("Victory! {reason}", reason=result["reason"]) if won
                    else t("Defeat. {reason}", reason=result["reason"])),
    }

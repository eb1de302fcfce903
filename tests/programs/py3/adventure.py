# A text adventure driven by a scripted list of commands: rooms are a dict
# of lists of (direction, room) tuples, items live in a dict of lists, the
# player is a small state machine (exploring / fighting / dead / won), and
# every message is built with %-formatting.
# args: 2
import sys

EXITS = {
    'hall': [('north', 'library'), ('east', 'kitchen'), ('down', 'cellar')],
    'library': [('south', 'hall'), ('up', 'tower')],
    'kitchen': [('west', 'hall'), ('north', 'garden')],
    'garden': [('south', 'kitchen')],
    'cellar': [('up', 'hall')],
    'tower': [('down', 'library')],
}

ITEMS = {
    'hall': ['lamp'],
    'library': ['book', 'key'],
    'kitchen': ['knife', 'bread'],
    'garden': ['rose'],
    'cellar': ['sword'],
    'tower': [],
}

DESCRIPTIONS = {
    'hall': 'a draughty hall',
    'library': 'a dusty library',
    'kitchen': 'a greasy kitchen',
    'garden': 'an overgrown garden',
    'cellar': 'a damp cellar',
    'tower': 'the top of the tower',
}

WEIGHTS = {'lamp': 2, 'book': 3, 'key': 1, 'knife': 1, 'bread': 1,
           'rose': 1, 'sword': 5}

EXPLORING = 0
FIGHTING = 1
DEAD = 2
WON = 3
STATE_NAMES = ['exploring', 'fighting', 'dead', 'won']


class GameError(Exception):
    def __init__(self, message):
        self.message = message


class Monster(object):
    kind = 'monster'

    def __init__(self, name, hp, attack=2):
        self.name = name
        self.hp = hp
        self.attack = attack

    def describe(self):
        return '%s the %s (%d hp)' % (self.name, self.kind, self.hp)


class Dragon(Monster):
    kind = 'dragon'

    def __init__(self, name, hp):
        Monster.__init__(self, name, hp, 4)

    def describe(self):
        return 'a fearsome ' + Monster.describe(self)


class Player(object):
    max_weight = 8

    def __init__(self, where):
        self.where = where
        self.bag = []
        self.hp = 10
        self.state = EXPLORING
        self.moves = 0
        self.enemy = None
        self.log = []

    def weight(self):
        total = 0
        for item in self.bag:
            total += WEIGHTS[item]
        return total

    def say(self, msg):
        self.log.append('[%02d %-9s] %s' % (self.moves, STATE_NAMES[self.state], msg))


def find_exit(room, direction):
    for d, target in EXITS[room]:
        if d == direction:
            return target
    raise GameError('no way %s from %s' % (direction, room))


def take(player, rooms, item):
    here = rooms[player.where]
    if item not in here:
        raise GameError('there is no %s here' % item)
    if player.weight() + WEIGHTS[item] > player.max_weight:
        raise GameError('the %s is too heavy (carrying %d/%d)' %
                        (item, player.weight(), player.max_weight))
    here.remove(item)
    player.bag.append(item)
    player.say('took the %s' % item)


def drop(player, rooms, item):
    for i in range(len(player.bag)):
        if player.bag[i] == item:
            del player.bag[i]
            rooms[player.where].append(item)
            player.say('dropped the %s' % item)
            break
    else:
        raise GameError('you do not carry a %s' % item)


def fight(player):
    enemy = player.enemy
    if enemy is None:
        raise GameError('nothing to fight')
    damage = 1
    if 'sword' in player.bag:
        damage = 4
    elif 'knife' in player.bag:
        damage = 2
    enemy.hp -= damage
    if enemy.hp <= 0:
        player.say('%s falls' % enemy.name)
        player.enemy = None
        player.state = EXPLORING
        if isinstance(enemy, Dragon):
            player.state = WON
        return
    player.hp -= enemy.attack
    player.say('hit %s for %d, it hits back for %d; hp %d' %
               (enemy.name, damage, enemy.attack, player.hp))
    if player.hp <= 0:
        player.state = DEAD


def step(player, rooms, monsters, line):
    words = line.split(' ')
    verb = words[0]
    arg = ''
    if len(words) > 1:
        arg = words[1]
    if player.state == FIGHTING and verb != 'fight' and verb != 'eat':
        raise GameError('%s blocks the way' % player.enemy.describe())
    if verb == 'go':
        player.where = find_exit(player.where, arg)
        player.say('you are in %s' % DESCRIPTIONS[player.where])
        if player.where in monsters:
            m = monsters[player.where]
            if m.hp > 0:
                player.enemy = m
                player.state = FIGHTING
                player.say('%s appears!' % m.describe())
    elif verb == 'take':
        take(player, rooms, arg)
    elif verb == 'drop':
        drop(player, rooms, arg)
    elif verb == 'fight':
        fight(player)
    elif verb == 'eat':
        if 'bread' in player.bag:
            player.bag.remove('bread')
            player.hp += 5
            player.say('ate bread, hp %d' % player.hp)
        else:
            raise GameError('nothing to eat')
    elif verb == 'look':
        things = rooms[player.where]
        exits = [d for d, _ in EXITS[player.where]]
        player.say('%s; items: %s; exits: %s' % (
            DESCRIPTIONS[player.where],
            ', '.join(things) if things else 'none',
            '/'.join(exits)))
    else:
        raise GameError('unknown verb %r' % verb)


SCRIPT = [
    'look', 'take lamp', 'go north', 'take book', 'take key', 'look',
    'drop book', 'go south', 'go east', 'take knife', 'take bread',
    'go north', 'take rose', 'drop rose', 'go south', 'go west', 'go down',
    'take sword', 'fight', 'fight', 'fight', 'drop lamp', 'drop knife',
    'take sword', 'go up', 'go north', 'go up', 'fight', 'fight', 'eat',
    'fight', 'fly away', 'fight', 'fight', 'look',
]


def play(rounds):
    rooms = {}
    for name, items in ITEMS.items():
        rooms[name] = list(items)
    monsters = {'cellar': Monster('Grub', 5), 'tower': Dragon('Smaug', 6 * rounds)}
    player = Player('hall')
    errors = 0
    for line in SCRIPT:
        if player.state == DEAD or player.state == WON:
            break
        player.moves += 1
        try:
            step(player, rooms, monsters, line)
        except GameError as e:
            errors += 1
            player.say('cannot %s: %s' % (line, e.message))
    for entry in player.log:
        print(entry)
    print('state=%s hp=%d moves=%d errors=%d bag=%s' % (
        STATE_NAMES[player.state], player.hp, player.moves, errors,
        ','.join(player.bag)))
    return player.state


def entry_point(argv):
    rounds = 1
    if len(argv) > 1:
        rounds = int(argv[1])
    for r in range(1, rounds + 1):
        print('--- game %d ---' % r)
        state = play(r)
        print('result: %s' % STATE_NAMES[state])
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# An INI-style configuration reader: sections, key = value pairs,
# continuation lines, comments, ${section.key} interpolation resolved with
# find/replace until nothing changes, typed getters that check their text
# with isdigit/isalpha, and a report padded by hand.
# args: 2
import sys

CONFIG = """
; server configuration
[server]
host = example.org
port = 8080
name = ${server.host}:${server.port}
debug = no
workers = 4

[paths]
root = /srv/www
logs = ${paths.root}/logs
static = ${paths.root}/static/
cache = ${paths.logs}/../cache
archive = backup.tar.gz

[users]
admins = alice, bob,
    carol
guests = dave
quota = 250MB

# a bad section follows
[broken]
loop = ${broken.loop}x
missing = ${nowhere.key}
number = 12a
"""


class ConfigError(Exception):
    def __init__(self, where, msg):
        self.where = where
        self.msg = msg


class Stats(object):
    def __init__(self):
        self.interpolated = 0


# prebuilt, so mutable at run time (a class attribute would be a constant)
STATS = Stats()


class Entry(object):
    def __init__(self, section, key, raw, lineno):
        self.section = section
        self.key = key
        self.raw = raw
        self.value = raw
        self.lineno = lineno

    def full_name(self):
        return self.section + '.' + self.key


class Config(object):
    max_rounds = 8

    def __init__(self):
        self.entries = {}
        self.order = []

    @staticmethod
    def clean(line):
        for marker in ';#':
            i = line.find(marker)
            if i == 0:
                return ''
        return line.rstrip()

    def add(self, entry):
        name = entry.full_name()
        if name in self.entries:
            raise ConfigError(name, 'defined twice (line %d)' % entry.lineno)
        self.entries[name] = entry
        self.order.append(name)

    def parse(self, text):
        section = ''
        last = None
        for lineno, line in enumerate(text.split('\n')):
            line = Config.clean(line)
            if not line:
                continue
            if line.startswith(' ') or line.startswith('\t'):
                if last is None:
                    raise ConfigError('line %d' % (lineno + 1), 'continuation of nothing')
                last.raw = last.raw + ' ' + line.strip()
                last.value = last.raw
                continue
            if line.startswith('[') and line.endswith(']'):
                section = line[1:len(line) - 1].strip().lower()
                last = None
                continue
            eq = line.find('=')
            if eq < 0:
                raise ConfigError('line %d' % (lineno + 1), 'no "=" in %r' % line)
            last = Entry(section, line[:eq].strip(), line[eq + 1:].strip(), lineno + 1)
            self.add(last)

    def expand_once(self, entry):
        text = entry.value
        start = text.find('${')
        changed = False
        while start >= 0:
            end = text.find('}', start)
            if end < 0:
                break
            ref = text[start + 2:end]
            if ref not in self.entries:
                raise ConfigError(entry.full_name(), 'unknown reference %s' % ref)
            value = self.entries[ref].value
            text = text[:start] + value + text[end + 1:]
            changed = True
            start = text.find('${', start + len(value))
        entry.value = text
        return changed

    def interpolate(self):
        failures = []
        for name in self.order:
            entry = self.entries[name]
            rounds = 0
            try:
                while rounds < Config.max_rounds:
                    if not self.expand_once(entry):
                        break
                    rounds += 1
                    STATS.interpolated += 1
                else:
                    raise ConfigError(name, 'reference loop after %d rounds' % rounds)
            except ConfigError as e:
                failures.append('%s: %s' % (e.where, e.msg))
        return failures

    def get(self, name):
        if name not in self.entries:
            raise ConfigError(name, 'no such key')
        return self.entries[name].value

    def get_int(self, name):
        text = self.get(name)
        if not text.isdigit():
            raise ConfigError(name, '%r is not a number' % text)
        return int(text)

    def get_bool(self, name):
        text = self.get(name).lower()
        if text in ('yes', 'true', 'on', '1'):
            return True
        if text in ('no', 'false', 'off', '0'):
            return False
        raise ConfigError(name, '%r is not a boolean' % text)

    def get_list(self, name):
        items = []
        for part in self.get(name).split(','):
            part = part.strip()
            if part:
                items.append(part)
        return items

    def get_size(self, name):
        text = self.get(name).upper()
        digits = 0
        while digits < len(text) and text[digits].isdigit():
            digits += 1
        unit = text[digits:]
        if not unit.isalpha():
            raise ConfigError(name, 'bad unit in %r' % text)
        scale = 1
        for suffix, factor in [('B', 1), ('KB', 1024), ('MB', 1024 * 1024)]:
            if unit == suffix:
                scale = factor
                break
        else:
            raise ConfigError(name, 'unknown unit %s' % unit)
        return int(text[:digits]) * scale


def pad(text, width, fill='.'):
    if len(text) >= width:
        return text
    return text + fill * (width - len(text))


def report(config, width):
    lines = []
    section = ''
    for name in config.order:
        entry = config.entries[name]
        if entry.section != section:
            section = entry.section
            lines.append('[%s] %d keys' % (section.upper(), name.count('.') +
                         len([n for n in config.order if n.startswith(section + '.')]) - 1))
        lines.append('  ' + pad(entry.key, width) + ' ' + entry.value)
    return lines


def entry_point(argv):
    width = 10
    if len(argv) > 1:
        width = 6 * int(argv[1])
    config = Config()
    try:
        config.parse(CONFIG)
    except ConfigError as e:
        print('parse error at %s: %s' % (e.where, e.msg))
        return 1
    for failure in config.interpolate():
        print('interpolation: ' + failure)
    for line in report(config, width):
        print(line)
    print('interpolated %d times' % STATS.interpolated)
    checks = ['server.port', 'server.workers', 'server.debug', 'users.quota',
              'broken.number', 'paths.archive', 'server.nothing', 'server.host']
    for name in checks:
        try:
            if name.endswith('debug'):
                print('%s -> %s' % (name, config.get_bool(name)))
            elif name.endswith('quota'):
                print('%s -> %d bytes' % (name, config.get_size(name)))
            elif name.endswith('archive'):
                text = config.get(name)
                dot = text.rfind('.')
                print('%s -> stem %s ext %s (%d dots)' % (name, text[:dot], text[dot + 1:],
                                                          text.count('.')))
            elif name.endswith('host'):
                print('%s -> %s' % (name, '-'.join(config.get(name).split('.'))))
            else:
                print('%s -> %d' % (name, config.get_int(name) * 2))
        except ConfigError as e:
            print('%s: error: %s' % (e.where, e.msg))
    admins = config.get_list('users.admins')
    print('admins: %s (%d)' % (' & '.join(admins), len(admins)))
    for bad in ['[x]\n  cont', 'k = 1\nk = 2', 'just words']:
        other = Config()
        try:
            other.parse(bad)
        except ConfigError as e:
            print('rejected: %s: %s' % (e.where, e.msg))
        else:
            print('accepted %d entries' % len(other.order))
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

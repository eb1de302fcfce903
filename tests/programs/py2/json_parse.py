# A JSON-like parser with a class per node, a pretty-printer and queries.
# args: 2
import sys


class QueryError(Exception):
    pass


class JSONError(Exception):
    def __init__(self, msg, pos):
        self.msg = msg
        self.pos = pos


class JValue(object):
    def dump(self, indent):
        raise NotImplementedError

    def count(self):
        return 1


class JNull(JValue):
    kind = "null"

    def dump(self, indent):
        return "null"


class JBool(JValue):
    kind = "bool"

    def __init__(self, value):
        self.value = value

    def dump(self, indent):
        return "true" if self.value else "false"


class JNumber(JValue):
    kind = "number"

    def __init__(self, value):
        self.value = value

    def dump(self, indent):
        if self.value == int(self.value):
            return "%d" % int(self.value)
        return "%.4f" % self.value


class JString(JValue):
    kind = "string"

    def __init__(self, value):
        self.value = value

    def dump(self, indent):
        out = '"'
        for c in self.value:
            if c == '"':
                out += '\\"'
            elif c == '\n':
                out += '\\n'
            else:
                out += c
        return out + '"'


class JArray(JValue):
    kind = "array"

    def __init__(self, items):
        self.items = items

    def count(self):
        n = 1
        for item in self.items:
            n += item.count()
        return n

    def dump(self, indent):
        if not self.items:
            return "[]"
        pad = "  " * (indent + 1)
        parts = [pad + item.dump(indent + 1) for item in self.items]
        return "[\n" + ",\n".join(parts) + "\n" + "  " * indent + "]"


class JObject(JValue):
    kind = "object"

    def __init__(self):
        self.keys = []
        self.values = {}

    def put(self, key, value):
        if key not in self.values:
            self.keys.append(key)
        self.values[key] = value

    def count(self):
        n = 1
        for key in self.keys:
            n += self.values[key].count()
        return n

    def dump(self, indent):
        if not self.keys:
            return "{}"
        pad = "  " * (indent + 1)
        parts = []
        for key in self.keys:
            parts.append('%s"%s": %s' % (pad, key, self.values[key].dump(indent + 1)))
        return "{\n" + ",\n".join(parts) + "\n" + "  " * indent + "}"


class Parser(object):
    def __init__(self, text):
        self.text = text
        self.pos = 0

    def skip_ws(self):
        while self.pos < len(self.text) and self.text[self.pos] in " \t\n\r":
            self.pos += 1

    def peek(self):
        self.skip_ws()
        if self.pos >= len(self.text):
            raise JSONError("unexpected end of input", self.pos)
        return self.text[self.pos]

    def expect(self, c):
        if self.peek() != c:
            raise JSONError("expected '%s' but found '%s'" % (c, self.text[self.pos]), self.pos)
        self.pos += 1

    def parse_value(self):
        c = self.peek()
        if c == '{':
            return self.parse_object()
        if c == '[':
            return self.parse_array()
        if c == '"':
            return JString(self.parse_string())
        if c == '-' or c.isdigit():
            return self.parse_number()
        for word in ["true", "false", "null"]:
            if self.text[self.pos:self.pos + len(word)] == word:
                self.pos += len(word)
                if word == "null":
                    return JNull()
                return JBool(word == "true")
        raise JSONError("unexpected character '%s'" % c, self.pos)

    def parse_string(self):
        self.expect('"')
        start = self.pos
        chunks = []
        while True:
            if self.pos >= len(self.text):
                raise JSONError("unterminated string", start)
            c = self.text[self.pos]
            if c == '"':
                break
            if c == '\\':
                nxt = self.text[self.pos + 1]
                if nxt == 'n':
                    chunks.append('\n')
                else:
                    chunks.append(nxt)
                self.pos += 2
            else:
                chunks.append(c)
                self.pos += 1
        self.pos += 1
        return "".join(chunks)

    def parse_number(self):
        start = self.pos
        if self.text[self.pos] == '-':
            self.pos += 1
        while self.pos < len(self.text) and (self.text[self.pos].isdigit() or self.text[self.pos] in ".eE+-"):
            self.pos += 1
        literal = self.text[start:self.pos]
        try:
            return JNumber(float(literal))
        except ValueError:
            raise JSONError("bad number " + literal, start)

    def parse_array(self):
        self.expect('[')
        items = []
        while self.peek() != ']':
            items.append(self.parse_value())
            if self.peek() != ',':
                break
            self.pos += 1
        self.expect(']')
        return JArray(items)

    def parse_object(self):
        self.expect('{')
        obj = JObject()
        if self.peek() == '}':
            self.pos += 1
            return obj
        while True:
            key = self.parse_string()
            self.expect(':')
            obj.put(key, self.parse_value())
            if self.peek() == ',':
                self.pos += 1
            else:
                self.expect('}')
                return obj


def parse(text):
    p = Parser(text)
    value = p.parse_value()
    p.skip_ws()
    if p.pos != len(text):
        raise JSONError("trailing data", p.pos)
    return value


def lookup(value, path):
    for part in path.split("."):
        try:
            if isinstance(value, JObject):
                value = value.values[part]
            elif isinstance(value, JArray):
                value = value.items[int(part)]
            else:
                raise QueryError("%s is a %s" % (part, value.kind))
        except IndexError:
            raise QueryError("index %s out of range" % part)
    return value


def sum_numbers(value):
    if isinstance(value, JNumber):
        return value.value
    total = 0.0
    if isinstance(value, JArray):
        for item in value.items:
            total += sum_numbers(item)
    elif isinstance(value, JObject):
        for key in value.keys:
            total += sum_numbers(value.values[key])
    return total


DOC = ('{"name": "rpy", "version": 3, "ratio": 0.125, "tags": ["a", "b\\"c", "x\\ny"],'
       ' "nested": {"empty": [], "obj": {}, "flag": true, "none": null,'
       ' "list": [1, 2.5, -3, 1e2, {"deep": [false]}]}}')

BAD = ['{"a": 1,', '[1, 2', '{"a" 1}', '[1.2.3]', 'nul', '"open', '[1] x', '{"k": @}']

QUERIES = ["name", "tags.1", "nested.list.4.deep.0", "nested.list.9", "nested.missing",
           "version.x", "tags.two"]


def entry_point(argv):
    rounds = 1
    if len(argv) > 1:
        rounds = int(argv[1])
    doc = parse(DOC)
    for r in range(rounds - 1):
        doc = parse(doc.dump(0))
    print doc.dump(0)
    print "nodes: %d, number sum: %.3f" % (doc.count(), sum_numbers(doc))
    for q in QUERIES:
        try:
            v = lookup(doc, q)
            print "%-22s -> %s %s" % (q, v.kind, v.dump(0))
        except KeyError:
            print "%-22s -> missing key" % q
        except QueryError, e:
            print "%-22s -> %s" % (q, str(e))
        except ValueError:
            print "%-22s -> not an index" % q
    for text in BAD:
        try:
            parse(text)
            print "parsed?! " + text
        except JSONError, e:
            print "error at %d in %s: %s" % (e.pos, text, e.msg)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

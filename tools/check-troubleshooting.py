#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks that Documentation/troubleshooting.rst explains every sentence the
module (kmod/) and libenc (lib/) can hand back to a caller, and every reason
(enum encd_reason) a failure can carry.

  check-troubleshooting.py [--page RST] [--top DIR] [--list]

The sentences are read from the code; only the names of the functions that
make them are listed below:

* every call of a *sentence maker*: a printf-like function (declared with
  __printf(F, V) or __attribute__((format(printf, F, V)))) whose text is
  returned to a caller: encd_fail(), encd_xport_fail() (enc_ or encd_
  prefix), the root's reject(), enc_set_error(), and the makers of the
  failures a rank keeps for its next call: encd_rank_fail(),
  encd_host_fail_world() and the bootstrap's node_fail() and ring_fail();
  each of them also as its _why variant, which takes the failure's reason
  before its format (encd_fail_why(), enc_set_error_why(), ...): the
  format's place comes from the declaration (a va_list back end,
  __printf(F, 0), is no maker: its callers are); plus every
  function-like macro whose body hands its format to one of those, with the
  literal it prepends (bad() in kmod/program.c adds "Invalid program: ");
  plus the netlink extack setters (NL_SET_ERR_MSG and relatives,
  GENL_SET_ERR_MSG);
* every *fragment*: text that a sentence carries in through a %s. That is
  a string literal among a sentence maker's other arguments ("timed out"),
  the format of a printf-like fragment maker (take_list()'s list name,
  link_failed()'s reason), a string literal passed to a fragment wrapper
  (jerr() in lib/program.c), the format of an snprintf() into a buffer
  named like a fragment ("why", "text", "buf"), and every string literal
  of a fragment table (the module's encd_errno_name(), settings_words()
  and type_names[]).

A printf-like function that is in none of the lists below is an error, so a
new way of making sentences cannot slip past this check.

Formats are compared normalised: C escapes decoded, every printf conversion
(%u, %d, %zu, %s, %.*s, %*phN, %pISpc, ...) replaced by one placeholder,
white space collapsed. On the page, a sentence is the term of a definition
list, written as an inline literal at the start of a line:

  ``Failed to find core %u``
     ENODEV. ...

and a fragment is any inline literal (a term or ``inline``). Every sentence
in the code must be a term on the page, every fragment a literal on it, and
every term must still be a sentence or fragment of the code. A format with
fewer than four letters ("%s", "%s: %s: %s%s") only passes on a sentence
made elsewhere and need not be on the page.

The reasons: every value of enum encd_reason (uapi/linux/encd.h; a name
that starts with "__", the count, is none) has an entry in the page's
"Reasons" section, in the enum's order, written as a definition-list term
of its uapi name and libenc's name:

  ``ENCD_REASON_NO_CORE`` / ``no-core``
     What it means, its errnos, what to do; and the sections that list
     its sentences, as references: `Every ioctl`_.

and the section has no entry for a name that is not in the enum (nor does
the page name one anywhere). libenc's name is the one of enc_reason_name()'s
table (lib/, the array enc_reason_names[], initialized as [ENCD_REASON_X] =
"x"), which must name every value once, by the rule the header documents
(the uapi name without ENCD_REASON_, lowercase, '-' for '_'). An entry
names at least one section, and every `Section`_ reference of the page
names a section of it. The Reasons section's terms are not sentences.

Prints each missing sentence with file:line, each stale term with its page
line, each reason that is not where it should be, and exits 1 if there was
any problem; 0 otherwise.
"""

import argparse
import glob
import os
import re
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
PAGE = 'Documentation/troubleshooting.rst'
SOURCES = ['kmod/*.c', 'kmod/*.h', 'lib/**/*.c', 'lib/**/*.h']
UAPI = 'uapi/linux/encd.h'
# The enum of reasons, its section on the page, libenc's table of their names.
REASON_ENUM = 'encd_reason'
REASON_SECTION = 'Reasons'
REASON_TABLE = 'enc_reason_names'
LIB_SOURCES = ['lib/**/*.c']

# Printf-like functions whose text reaches a caller as a sentence; the _why
# variants take the failure's reason (enum encd_reason) as well.
SENTENCE_MAKERS = re.compile(r'^(encd?_fail|encd?_xport_fail|reject|enc_set_error|encd_rank_fail|'
                             r'encd_host_fail_world|node_fail|ring_fail)(_why)?$')
# Printf-like functions whose text reaches a caller inside a sentence.
FRAGMENT_MAKERS = re.compile(r'^(take_list|link_failed)$')
# Printf-like functions whose text is not words: a JSON path, say.
NOT_TEXT = re.compile(r'^(jpath_fmt)$')
# Plain functions whose string-literal arguments end up inside a sentence.
FRAGMENT_WRAPPERS = re.compile(r'^(jerr)$')
# Buffers that snprintf() fills with a fragment, or (a kept failure's
# sentence, struct encd_why) with a sentence: why->msg, f.msg.
FRAGMENT_BUFFERS = re.compile(r'^(why|range|where|text|buf)$')


def fills_fragment(buf):
    """Whether an snprintf() into the buffer expression (its tokens) makes
    text a caller reads."""
    if len(buf) == 1:
        return bool(FRAGMENT_BUFFERS.match(buf[0].text))
    return len(buf) == 3 and buf[1].text in ('->', '.') and buf[2].text == 'msg'
FRAGMENT_PRINTERS = re.compile(r'^v?s(c)?nprintf$')
# Functions and arrays whose every string literal is a fragment.
FRAGMENT_TABLES = re.compile(r'^(frame_rules|encd_errno_name|settings_words)$')
# The netlink extack setters, whose first string literal is the sentence.
EXTACK = re.compile(r'^(NL_SET_ERR_MSG\w*|GENL_SET_ERR_MSG\w*)$')

CONVERSION = re.compile(r'%(?:%|[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?'
                        r'(?:p[A-Za-z]*|(?:hh|h|ll|l|L|z|j|t)?[diouxXeEfFgGcsn]))')
HOLE = '\x00'

problems = []


def problem(msg):
    problems.append(msg)
    print('check-troubleshooting: ' + msg)


def normalise(text):
    def conv(m):
        return '%' if m.group(0) == '%%' else HOLE
    text = CONVERSION.sub(conv, text)
    return ' '.join(text.split())


def words(norm):
    """Whether a normalised text says anything: four letters at least."""
    return len(re.findall(r'[A-Za-z]', norm.replace(HOLE, ''))) >= 4


# ---- C, as far as this check needs it ----

TOKEN = re.compile(r'''
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f\v]+|\\\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*")
  | (?P<chr>'(?:[^'\\\n]|\\.)*')
  | (?P<id>[A-Za-z_]\w*)
  | (?P<num>\.?\d(?:[\w.]|[eEpP][-+])*)
  | (?P<punct>\.\.\.|->|\#\#|[-+*/%&|^<>=!]=|&&|\|\||<<|>>|\+\+|--|.)
''', re.X | re.S)

ESCAPES = {'n': '\n', 't': '\t', 'r': '\r', 'a': '\a', 'b': '\b', 'f': '\f', 'v': '\v'}


def unescape(m):
    e = m.group(1)
    if e[0] == 'x':
        return chr(int(e[1:], 16))
    if e[0] in '01234567':
        return chr(int(e, 8))
    return ESCAPES.get(e, e)


def c_string(tok):
    """The text of a C string literal token."""
    return re.sub(r'\\(x[0-9a-fA-F]+|[0-7]{1,3}|.)', unescape, tok[tok.index('"') + 1:-1])


class Tok:
    __slots__ = ('kind', 'text', 'line', 'pp')

    def __init__(self, kind, text, line, pp):
        self.kind, self.text, self.line, self.pp = kind, text, line, pp


def tokenize(src):
    """Tokens without white space or comments; pp is the number of the
    preprocessor directive a token belongs to (0: none)."""
    toks = []
    line = 1
    bol = True
    pp = 0
    directive = 0
    for m in TOKEN.finditer(src):
        kind = m.lastgroup
        text = m.group(kind)
        if kind == 'nl':
            line += 1
            bol = True
            pp = 0
            continue
        if kind in ('ws', 'comment'):
            line += text.count('\n')
            continue
        if bol and text == '#':
            directive += 1
            pp = directive
        bol = False
        toks.append(Tok(kind, text, line, pp))
    return toks


def split_args(toks, i):
    """toks[i] is '('; returns ([arg tokens, ...], index after ')')."""
    depth = 0
    args = [[]]
    j = i
    while j < len(toks):
        t = toks[j].text
        if t in '([{' and toks[j].kind == 'punct':
            depth += 1
            if depth > 1:
                args[-1].append(toks[j])
        elif t in ')]}' and toks[j].kind == 'punct':
            depth -= 1
            if depth == 0:
                return (args if args != [[]] else []), j + 1
            args[-1].append(toks[j])
        elif t == ',' and depth == 1:
            args.append([])
        else:
            args[-1].append(toks[j])
        j += 1
    return args, j


class Source:
    def __init__(self, path, rel):
        self.rel = rel
        with open(path, encoding='utf-8') as f:
            self.toks = tokenize(f.read())


def string_macros(sources):
    """#define NAME "literal" ...: NAME -> its text."""
    out = {}
    for s in sources:
        t = s.toks
        for i in range(len(t) - 3):
            if t[i].text == '#' and t[i + 1].text == 'define' and t[i + 2].kind == 'id':
                body = [x for x in t[i + 3:] if x.pp == t[i].pp]
                if body and all(x.kind == 'str' for x in body):
                    out[t[i + 2].text] = ''.join(c_string(x.text) for x in body)
    return out


def printf_like(sources):
    """name -> (format argument index from 0, file:line) of every printf-like
    function declared or defined in the sources."""
    out = {}
    for s in sources:
        t = s.toks
        for i, tok in enumerate(t):
            fmt = first = None
            if tok.text == '__printf' and i + 1 < len(t) and t[i + 1].text == '(':
                args, end = split_args(t, i + 1)
                fmt = args[0][0].text
                first = args[1][0].text if len(args) > 1 and args[1] else None
            elif (tok.text == 'format' and i + 2 < len(t) and t[i + 1].text == '(' and
                  t[i + 2].text in ('printf', '__printf__')):
                args, end = split_args(t, i + 1)
                fmt = args[1][0].text
                first = args[2][0].text if len(args) > 2 and args[2] else None
                # past the closing parentheses of __attribute__((...))
                while end < len(t) and t[end].text == ')':
                    end += 1
            # not a use of the attribute (a definition of __printf, say), or
            # a va_list back end (first argument 0): its callers' formats count
            if fmt is None or not fmt.isdigit() or first == '0':
                continue
            fmt = int(fmt)
            name = None
            if end < len(t) and t[end].text in (';', '{', ','):
                # trailing attribute: the declarator is before it
                j = i
                while j > 0 and t[j].text != ')':
                    j -= 1
                depth = 0
                while j > 0:
                    if t[j].text == ')':
                        depth += 1
                    elif t[j].text == '(':
                        depth -= 1
                        if depth == 0:
                            break
                    j -= 1
                name = t[j - 1].text
            else:
                for j in range(end, len(t) - 1):
                    if t[j].kind == 'id' and t[j + 1].text == '(':
                        name = t[j].text
                        break
            if name:
                out.setdefault(name, (fmt - 1, '%s:%d' % (s.rel, tok.line)))
    return out


def is_declaration(toks, i):
    """Whether the identifier at toks[i], followed by '(', is declared or
    defined there rather than called."""
    if i == 0:
        return True
    prev = toks[i - 1]
    if prev.kind == 'id' and prev.text not in ('return', 'else', 'case', 'do', 'sizeof'):
        return True
    return prev.text in ('*',) and i > 1 and toks[i - 2].kind == 'id'


def literal_parts(arg, smacros, params=()):
    """The tokens of one argument as a template: a list of str (literal text)
    and int (the index of a macro parameter), or None when the argument is
    anything else (a variable, a call, a conditional)."""
    parts = []
    for t in arg:
        if t.kind == 'str':
            parts.append(c_string(t.text))
        elif t.kind == 'id' and t.text in smacros:
            parts.append(smacros[t.text])
        elif t.kind == 'id' and t.text in params:
            parts.append(params.index(t.text))
        elif t.text not in ('(', ')'):
            return None
    return parts or None


def strings_in(arg):
    return [(c_string(t.text), t.line) for t in arg if t.kind == 'str']


class Makers:
    """name -> (format index, prefix, suffix) for sentence makers; the same
    for fragment makers."""

    def __init__(self, sources, smacros):
        self.sentence = {}
        self.fragment = {}
        for name, (fmt, where) in printf_like(sources).items():
            if SENTENCE_MAKERS.match(name):
                self.sentence[name] = (fmt, '', '')
            elif FRAGMENT_MAKERS.match(name):
                self.fragment[name] = (fmt, '', '')
            elif not NOT_TEXT.match(name):
                problem('%s: %s() is printf-like: tell tools/check-troubleshooting.py whether '
                        'it makes sentences (SENTENCE_MAKERS), parts of them (FRAGMENT_MAKERS) '
                        'or no text (NOT_TEXT)' % (where, name))
        self.macros(sources, smacros)

    def macros(self, sources, smacros):
        """Function-like macros that hand their format, with or without a
        literal before or after it, to a sentence maker."""
        for s in sources:
            t = s.toks
            for i in range(len(t) - 3):
                if not (t[i].text == '#' and t[i + 1].text == 'define' and
                        t[i + 2].kind == 'id' and t[i + 3].text == '(' and
                        t[i + 3].pp == t[i].pp):
                    continue
                params_args, end = split_args(t, i + 3)
                params = [a[0].text if a else '' for a in params_args]
                body = []
                while end < len(t) and t[end].pp == t[i].pp:
                    body.append(t[end])
                    end += 1
                for j in range(len(body) - 1):
                    callee = body[j].text
                    if callee not in self.sentence or body[j + 1].text != '(':
                        continue
                    fmt, pre, suf = self.sentence[callee]
                    args, _ = split_args(body, j + 1)
                    parts = literal_parts(args[fmt], smacros, params) if fmt < len(args) else None
                    refs = [k for k, p in enumerate(parts or []) if isinstance(p, int)]
                    if len(refs) != 1:
                        continue
                    k = refs[0]
                    self.sentence[t[i + 2].text] = (
                        parts[k], pre + ''.join(parts[:k]), ''.join(parts[k + 1:]) + suf)


def scan(sources, smacros, makers):
    """Returns (sentences, fragments): lists of (text, 'file:line')."""
    sentences, fragments = [], []
    for s in sources:
        t = s.toks
        for i, tok in enumerate(t):
            if tok.kind != 'id' or i + 1 >= len(t):
                continue
            name = tok.text
            # fragment tables: a function body or an array initializer
            if FRAGMENT_TABLES.match(name) and not tok.pp:
                j = i + 1
                if t[j].text == '(' and is_declaration(t, i):
                    _, j = split_args(t, j)
                elif t[j].text == '[':
                    _, j = split_args(t, j)
                    if j < len(t) and t[j].text == '=':
                        j += 1
                else:
                    j = None
                if j is not None and j < len(t) and t[j].text == '{':
                    body, _ = split_args(t, j)
                    for arg in body:
                        for text, line in strings_in(arg):
                            fragments.append((text, '%s:%d' % (s.rel, line)))
                    continue
            if t[i + 1].text != '(':
                continue
            if name in makers.sentence or name in makers.fragment:
                if is_declaration(t, i):
                    continue
                fmt, pre, suf = makers.sentence.get(name) or makers.fragment[name]
                args, _ = split_args(t, i + 1)
                where = '%s:%d' % (s.rel, tok.line)
                if fmt >= len(args):
                    problem('%s: %s() has no format argument' % (where, name))
                    continue
                parts = literal_parts(args[fmt], smacros)
                if parts is None or not all(isinstance(p, str) for p in parts):
                    if tok.pp:
                        continue    # a macro's format: Makers.macros() read it
                    problem('%s: the format of %s() is not a string literal: '
                            'make it one, so that this check can read it' % (where, name))
                    continue
                text = pre + ''.join(parts) + suf
                (sentences if name in makers.sentence else fragments).append((text, where))
                for arg in args[fmt + 1:]:
                    for frag, line in strings_in(arg):
                        fragments.append((frag, '%s:%d' % (s.rel, line)))
            elif EXTACK.match(name) and not is_declaration(t, i):
                args, _ = split_args(t, i + 1)
                lits = [strings_in(a) for a in args]
                lits = [x for x in lits if x]
                if lits:
                    sentences.append((''.join(x for x, _ in lits[0]),
                                      '%s:%d' % (s.rel, tok.line)))
            elif FRAGMENT_WRAPPERS.match(name) and not is_declaration(t, i):
                args, _ = split_args(t, i + 1)
                for arg in args:
                    for frag, line in strings_in(arg):
                        fragments.append((frag, '%s:%d' % (s.rel, line)))
            elif FRAGMENT_PRINTERS.match(name) and not is_declaration(t, i):
                args, _ = split_args(t, i + 1)
                if len(args) >= 3 and fills_fragment(args[0]):
                    parts = literal_parts(args[2], smacros)
                    if parts is not None and all(isinstance(p, str) for p in parts):
                        fragments.append((''.join(parts), '%s:%d' % (s.rel, tok.line)))
    return sentences, fragments


# ---- the reasons: the uapi's enum and libenc's names of it ----

def c_enum(toks, name):
    """The enumerators of enum @name, in order, or None if it is not there."""
    for i in range(len(toks) - 2):
        if (toks[i].text == 'enum' and toks[i + 1].text == name and
                toks[i + 2].text == '{'):
            body, _ = split_args(toks, i + 2)
            return [(arg[0].text, arg[0].line) for arg in body
                    if arg and arg[0].kind == 'id']
    return None


def reason_enum(top):
    """[(name, line)] of enum encd_reason, without its count (__...)."""
    path = os.path.join(top, UAPI)
    values = c_enum(Source(path, UAPI).toks, REASON_ENUM)
    if values is None:
        problem('%s: no enum %s' % (UAPI, REASON_ENUM))
        return []
    return [(v, line) for v, line in values if not v.startswith('__')]


def reason_table(sources):
    """(file, [(enumerator, name, 'file:line')]) of libenc's array of reason
    names, or (None, []) if there is none."""
    for s in sources:
        t = s.toks
        for i in range(len(t) - 1):
            if t[i].text != REASON_TABLE or t[i + 1].text != '[' or t[i].pp:
                continue
            _, j = split_args(t, i + 1)
            if j + 1 >= len(t) or t[j].text != '=' or t[j + 1].text != '{':
                continue
            body, _ = split_args(t, j + 1)
            out = []
            for arg in body:
                where = '%s:%d' % (s.rel, arg[0].line if arg else t[j].line)
                if (len(arg) == 5 and arg[0].text == '[' and arg[1].kind == 'id' and
                        arg[2].text == ']' and arg[3].text == '=' and arg[4].kind == 'str'):
                    out.append((arg[1].text, c_string(arg[4].text), where))
                elif arg:
                    problem('%s: an entry of %s[] that is not [ENCD_REASON_X] = "name": '
                            'write it so, so that this check can read it' % (where, REASON_TABLE))
            return s.rel, out
    return None, []


def reason_name_rule(value):
    """The documented name of an enumerator: ENCD_REASON_NO_CORE -> no-core."""
    return re.sub(r'^ENCD_REASON_', '', value).lower().replace('_', '-')


# ---- the page ----

TERM = re.compile(r'^``(.+)``\s*$')
LITERAL = re.compile(r'``(.+?)``', re.S)
REASON_TERM = re.compile(r'^``(ENCD_REASON_\w+)``\s*/\s*``([^`]+)``\s*$')
REASON_NAME = re.compile(r'\bENCD_REASON_\w+')
UNDERLINE = re.compile(r'^([=\-~^"\'`#*+:.])\1+\s*$')
REFERENCE = re.compile(r'`([^`<>]+)`_(?!_)')


def refname(text):
    """A reStructuredText reference name: case and white space do not count."""
    return ' '.join(text.split()).lower()


class Page:
    """The page as this check reads it: terms (normalised -> (line, text)),
    literals (normalised), the sections (reference name -> line), the line of
    the Reasons section (None: there is none) and its entries [(value, name,
    line, body)], every `Section`_ reference [(line, text)] and every
    ENCD_REASON_ name [(line, name)]."""

    def __init__(self, path, rel):
        with open(path, encoding='utf-8') as f:
            lines = f.read().split('\n')
        self.sections = {}
        levels = []
        titles = []     # (line index, level)
        for n in range(len(lines) - 1):
            m = UNDERLINE.match(lines[n + 1])
            title = lines[n].strip()
            if (m and title and not UNDERLINE.match(lines[n]) and
                    lines[n][:1] not in (' ', '\t') and len(lines[n + 1].rstrip()) >= len(title)):
                over = n > 0 and lines[n - 1].rstrip() == lines[n + 1].rstrip()
                style = (m.group(1), over)
                if style not in levels:
                    levels.append(style)
                titles.append((n, levels.index(style)))
                self.sections.setdefault(refname(title), n + 1)
        self.targets = {refname(m.group(1)) for m in
                        (re.match(r'^\.\. _([^:]+):', line) for line in lines) if m}

        # the Reasons section: its title's line to the next title of its level or above
        self.reasons_at = None
        first = last = len(lines)
        for k, (n, level) in enumerate(titles):
            if lines[n].strip() == REASON_SECTION:
                self.reasons_at = n + 1
                first = n + 2
                last = next((m for m, lv in titles[k + 1:] if lv <= level), len(lines))
                break

        self.terms = {}
        self.reasons = []
        for n, line in enumerate(lines):
            m = TERM.match(line)
            if not (m and n + 1 < len(lines) and lines[n + 1][:1] in (' ', '\t')):
                continue
            if first <= n < last:
                r = REASON_TERM.match(line)
                if not r:
                    problem('%s:%d: a term of %s that is not ``ENCD_REASON_X`` / ``name``: '
                            '``%s``' % (rel, n + 1, REASON_SECTION, m.group(1)))
                    continue
                body = []
                for b in lines[n + 1:]:
                    if b and b[:1] not in (' ', '\t'):
                        break
                    body.append(b)
                self.reasons.append((r.group(1), r.group(2), n + 1, '\n'.join(body)))
                continue
            self.terms.setdefault(normalise(m.group(1)), (n + 1, m.group(1)))
        text = '\n'.join(lines)
        self.literals = {normalise(m.group(1)) for m in LITERAL.finditer(text)} | set(self.terms)
        self.references = []
        for n, line in enumerate(lines):
            for m in REFERENCE.finditer(line):
                self.references.append((n + 1, m.group(1)))
        self.reason_mentions = [(n + 1, m.group(0)) for n, line in enumerate(lines)
                                for m in REASON_NAME.finditer(line)]


def check_reasons(top, page, rel_page, lib_sources):
    """The enum, libenc's table and the page's Reasons agree; returns how
    many reasons there are."""
    values = reason_enum(top)
    known = [v for v, _ in values]
    where_enum = {v: '%s:%d' % (UAPI, line) for v, line in values}

    table_file, table = reason_table(lib_sources)
    if table_file is None:
        problem('no %s[] in %s: enc_reason_name() must name every enum %s from a table '
                'this check can read' % (REASON_TABLE, ', '.join(LIB_SOURCES), REASON_ENUM))
    names = {}
    for value, name, where in table:
        if value not in known:
            problem('%s: %s[] names %s, which is not in enum %s (%s)'
                    % (where, REASON_TABLE, value, REASON_ENUM, UAPI))
        elif value in names:
            problem('%s: %s[] names %s twice' % (where, REASON_TABLE, value))
        elif name != reason_name_rule(value):
            problem('%s: %s[] names %s "%s"; by the rule of enc_reason_name() (its header) '
                    'it is "%s"' % (where, REASON_TABLE, value, name, reason_name_rule(value)))
        names.setdefault(value, name)
    by_name = {}
    for value, name, where in table:
        if name in by_name and by_name[name] != value:
            problem('%s: %s[] gives %s and %s the same name "%s"'
                    % (where, REASON_TABLE, by_name[name], value, name))
        by_name.setdefault(name, value)
    if table_file is not None:
        for value in known:
            if value not in names:
                problem('%s: %s has no name in %s[] (%s): add [%s] = "%s"'
                        % (where_enum[value], value, REASON_TABLE, table_file, value,
                           reason_name_rule(value)))

    if page.reasons_at is None:
        problem('%s: no section "%s" (one entry per enum %s value)'
                % (rel_page, REASON_SECTION, REASON_ENUM))
        return len(known)
    seen = {}
    for value, name, line, body in page.reasons:
        if value not in known:
            problem('%s:%d: %s names %s, which is not in enum %s (%s)'
                    % (rel_page, line, REASON_SECTION, value, REASON_ENUM, UAPI))
            continue
        if value in seen:
            problem('%s:%d: %s has a second entry for %s (the first is line %d)'
                    % (rel_page, line, REASON_SECTION, value, seen[value]))
            continue
        seen[value] = line
        want = names.get(value, reason_name_rule(value))
        if name != want:
            problem('%s:%d: %s calls %s ``%s``, libenc\'s enc_reason_name() "%s"'
                    % (rel_page, line, REASON_SECTION, value, name, want))
        if not REFERENCE.search(body):
            problem('%s:%d: the entry for %s names no section that lists its sentences '
                    '(`Section title`_)' % (rel_page, line, value))
    for value in known:
        if value not in seen:
            problem('%s: %s has no entry in %s (%s:%d): add ``%s`` / ``%s``, what it '
                    'means, its errnos, what to do and the sections of its sentences'
                    % (where_enum[value], value, rel_page, rel_page, page.reasons_at, value,
                       names.get(value, reason_name_rule(value))))
    order = [v for v, _, line, _ in page.reasons if seen.get(v) == line]
    if [v for v in known if v in seen] != order:
        problem('%s:%d: the entries of %s are not in the order of enum %s'
                % (rel_page, page.reasons_at, REASON_SECTION, REASON_ENUM))
    entry_lines = {line for _, _, line, _ in page.reasons}
    for line, value in page.reason_mentions:
        if value not in known and line not in entry_lines:
            problem('%s:%d: %s is not in enum %s (%s)' % (rel_page, line, value, REASON_ENUM,
                                                          UAPI))
    return len(known)


def check_references(page, rel_page):
    for line, text in page.references:
        name = refname(text)
        if name not in page.sections and name not in page.targets:
            problem('%s:%d: `%s`_ names no section of the page' % (rel_page, line, text))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--top', default=TOP, help='the tree to check (default: this one)')
    ap.add_argument('--page', help='the page (default: TOP/%s)' % PAGE)
    ap.add_argument('--list', action='store_true',
                    help='print every sentence and fragment found in the code, and every '
                    'reason found on the page')
    opts = ap.parse_args()
    page = opts.page or os.path.join(opts.top, PAGE)

    sources = []
    for pattern in SOURCES:
        for path in sorted(glob.glob(os.path.join(opts.top, pattern), recursive=True)):
            sources.append(Source(path, os.path.relpath(path, opts.top)))
    smacros = string_macros(sources)
    makers = Makers(sources, smacros)
    sentences, fragments = scan(sources, smacros, makers)

    if opts.list:
        for text, where in sentences:
            print('sentence %s: %s' % (where, text))
        for text, where in fragments:
            print('fragment %s: %s' % (where, text))

    if not sentences:
        problem('no sentence found in %s: is --top right?' % ', '.join(SOURCES))
    rel_page = os.path.relpath(page, opts.top)
    if rel_page.startswith('..'):
        rel_page = page
    doc = Page(page, rel_page)
    terms, literals = doc.terms, doc.literals
    lib_paths = {os.path.relpath(path, opts.top) for pattern in LIB_SOURCES
                 for path in glob.glob(os.path.join(opts.top, pattern), recursive=True)}
    lib_sources = [s for s in sources if s.rel in lib_paths]
    n_r = check_reasons(opts.top, doc, rel_page, lib_sources)
    check_references(doc, rel_page)
    if opts.list:
        for value, name, line, _ in doc.reasons:
            print('reason %s:%d: %s %s' % (rel_page, line, value, name))
    used = set()

    def missing(found, known, what):
        places = {}
        for text, where in found:
            norm = normalise(text)
            used.add(norm)
            # too few letters: a pass-through of a sentence made elsewhere
            if words(norm) and norm not in known:
                places.setdefault(norm, (text, []))[1].append(where)
        for text, wheres in places.values():
            also = ' (also %s)' % ', '.join(wheres[1:]) if wheres[1:] else ''
            problem('%s: %s, not in %s: ``%s``%s' % (wheres[0], what, rel_page, text, also))

    missing(sentences, terms, 'a sentence')
    missing(fragments, literals, 'part of a sentence')
    for norm, (line, text) in sorted(terms.items(), key=lambda x: x[1]):
        if norm not in used:
            problem('%s:%d: no longer in the code: ``%s``' % (rel_page, line, text))

    n_s = len({normalise(t) for t, _ in sentences if words(normalise(t))})
    n_f = len({normalise(t) for t, _ in fragments if words(normalise(t))})
    if problems:
        print('check-troubleshooting: %d problem(s); %d sentences, %d fragments and %d reasons '
              'in the code' % (len(problems), n_s, n_f, n_r))
        return 1
    print('check-troubleshooting: %s explains all %d sentences and %d fragments of kmod/ and '
          'lib/, and all %d reasons' % (rel_page, n_s, n_f, n_r))
    return 0


if __name__ == '__main__':
    sys.exit(main())

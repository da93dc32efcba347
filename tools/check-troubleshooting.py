#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks that Documentation/troubleshooting.rst explains every sentence the
module (kmod/) and libenc (lib/) can hand back to a caller.

  check-troubleshooting.py [--page RST] [--top DIR] [--list]

The sentences are read from the code; only the names of the functions that
make them are listed below:

* every call of a *sentence maker*: a printf-like function (declared with
  __printf(F, V) or __attribute__((format(printf, F, V)))) whose text is
  returned to a caller: encd_fail(), encd_xport_fail() (enc_ or encd_
  prefix), the root's reject(), enc_set_error(), and the makers of the
  failures a rank keeps for its next call: encd_rank_fail(),
  encd_host_fail_world() and the bootstrap's node_fail() and ring_fail()
  (a va_list back end, __printf(F, 0), is no maker: its callers are); plus every
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

Prints each missing sentence with file:line, each stale term with its page
line, and exits 1 if there was any; 0 otherwise.
"""

import argparse
import glob
import os
import re
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
PAGE = 'Documentation/troubleshooting.rst'
SOURCES = ['kmod/*.c', 'kmod/*.h', 'lib/**/*.c', 'lib/**/*.h']

# Printf-like functions whose text reaches a caller as a sentence.
SENTENCE_MAKERS = re.compile(r'^(encd?_fail|encd?_xport_fail|reject|enc_set_error|encd_rank_fail|'
                             r'encd_host_fail_world|node_fail|ring_fail)$')
# Printf-like functions whose text reaches a caller inside a sentence.
FRAGMENT_MAKERS = re.compile(r'^(take_list|link_failed)$')
# Printf-like functions whose text is not words: a JSON path, say.
NOT_TEXT = re.compile(r'^(jpath_fmt)$')
# Plain functions whose string-literal arguments end up inside a sentence.
FRAGMENT_WRAPPERS = re.compile(r'^(jerr)$')
# Buffers that snprintf() fills with a fragment.
FRAGMENT_BUFFERS = re.compile(r'^(why|range|where|text|buf)$')
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
                if len(args) >= 3 and len(args[0]) == 1 and FRAGMENT_BUFFERS.match(args[0][0].text):
                    parts = literal_parts(args[2], smacros)
                    if parts is not None and all(isinstance(p, str) for p in parts):
                        fragments.append((''.join(parts), '%s:%d' % (s.rel, tok.line)))
    return sentences, fragments


# ---- the page ----

TERM = re.compile(r'^``(.+)``\s*$')
LITERAL = re.compile(r'``(.+?)``', re.S)


def read_page(path):
    """(terms: normalised -> (line, text), literals: set of normalised)."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    terms = {}
    for n, line in enumerate(lines):
        m = TERM.match(line)
        if m and n + 1 < len(lines) and lines[n + 1][:1] in (' ', '\t'):
            terms.setdefault(normalise(m.group(1)), (n + 1, m.group(1)))
    literals = {normalise(m.group(1)) for m in LITERAL.finditer('\n'.join(lines))}
    return terms, literals | set(terms)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--top', default=TOP, help='the tree to check (default: this one)')
    ap.add_argument('--page', help='the page (default: TOP/%s)' % PAGE)
    ap.add_argument('--list', action='store_true',
                    help='print every sentence and fragment found in the code')
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
    terms, literals = read_page(page)
    rel_page = os.path.relpath(page, opts.top)
    if rel_page.startswith('..'):
        rel_page = page
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
        print('check-troubleshooting: %d problem(s); %d sentences and %d fragments in the code'
              % (len(problems), n_s, n_f))
        return 1
    print('check-troubleshooting: %s explains all %d sentences and %d fragments of kmod/ and lib/'
          % (rel_page, n_s, n_f))
    return 0


if __name__ == '__main__':
    sys.exit(main())

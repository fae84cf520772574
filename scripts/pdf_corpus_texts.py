#!/usr/bin/env python3
"""Helpers of scripts/make-pdf-corpus.sh (run by it; no third-party modules).

  texts SRCDIR            write the source texts (SRCDIR/<name>.txt, one paragraph
                          a line) and SRCDIR/SOURCES.tsv (name, script, lang,
                          package, licence, origin) from Debian's packages
  fodt SRC OUT LANG KIND  a LibreOffice flat ODT of SRC (KIND: plain, form, short, blank)
  tex SRC OUT LANG KIND   a LaTeX document of SRC (KIND: pdftex, pdftex-2col,
                          pdftex-foot, xetex)
  broken IN OUT HOW       a damaged copy of IN (HOW: truncated, cut92, shifted,
                          noxref, badstartxref)

Every text is cleaned so that what is typeset is exactly the text: characters
that LaTeX treats specially and control characters are dropped, so SRC is the
true text of every PDF made from it.
"""
import glob
import gzip
import html.parser
import os
import re
import struct
import subprocess
import sys

# name, script, lang, package, licence, how, where, max words
SOURCES = [
    ("en_gpl3", "latin", "en", "base-files", "verbatim copies permitted (the GPL-3 text itself)", "plain", "/usr/share/common-licenses/GPL-3", 6000),
    ("en_apache", "latin", "en", "base-files", "the Apache-2.0 licence text, freely redistributable", "plain", "/usr/share/common-licenses/Apache-2.0", 2000),
    ("en_faq", "latin", "en", "debian-faq", "verbatim and modified copies permitted (the FAQ's permission notice)", "plain", "/usr/share/doc/debian/FAQ/debian-faq.en.txt.gz", 12000),
    ("en_constitution", "latin", "en", "debian-history", "GPL-2+", "plain", "/usr/share/doc/debian-history/constitution.txt.gz", 4000),
    ("en_short", "latin", "en", "base-files", "verbatim copies permitted (the GPL-3 text itself)", "plain", "/usr/share/common-licenses/GPL-3", 120),
    ("de_faq", "latin", "de", "debian-faq-de", "verbatim and modified copies permitted (the FAQ's permission notice)", "plain", "/usr/share/doc/debian/FAQ/debian-faq.de.txt.gz", 9000),
    ("de_maint", "latin", "de", "maint-guide-de", "GPL-2+", "html", "/usr/share/doc/maint-guide-de/html/*.html", 2500),
    ("fr_maint", "latin", "fr", "maint-guide-fr", "GPL-2+", "html", "/usr/share/doc/maint-guide-fr/html/*.html", 3000),
    ("vi_maint", "latin", "vi", "maint-guide-vi", "GPL-2+", "html", "/usr/share/doc/maint-guide-vi/html/*.html", 2500),
    ("cs_man", "latin", "cs", "manpages-cs", "GPL-3+ (manpages-l10n translations)", "man", "/usr/share/man/cs/man1/*.1.gz", 2500),
    ("pl_man", "latin", "pl", "manpages-pl", "GPL-3+ (manpages-l10n translations)", "man", "/usr/share/man/pl/man1/*.1.gz", 2500),
    ("tr_man", "latin", "tr", "manpages-tr", "GNU GPL (manpages-tr's copyright file)", "man", "/usr/share/man/tr/man1/*.1.gz", 1500),
    ("ru_faq", "cyrillic", "ru", "debian-faq-ru", "verbatim and modified copies permitted (the FAQ's permission notice)", "plain", "/usr/share/doc/debian/FAQ/debian-faq.ru.txt.gz", 12000),
    ("ru_maint", "cyrillic", "ru", "maint-guide-ru", "GPL-2+", "html", "/usr/share/doc/maint-guide-ru/html/*.html", 2500),
    ("uk_man", "cyrillic", "uk", "manpages-uk", "GPL-3+ (manpages-l10n translations)", "man", "/usr/share/man/uk/man1/*.1.gz", 3000),
    ("mk_man", "cyrillic", "mk", "manpages-mk", "GPL-3+ (manpages-l10n translations)", "man", "/usr/share/man/mk/man1/*.1.gz", 1500),
    ("el_man", "greek", "el", "manpages-el", "GPL-3+ (manpages-l10n translations)", "man", "/usr/share/man/el/man1/[cds]*.1.gz", 3000),
    ("el_msgs", "greek", "el", "coreutils, dpkg, bash, apt (gettext catalogues)", "GPL-2+ / GPL-3+ (each program's licence)", "mo", "/usr/share/locale/el/LC_MESSAGES/{coreutils,dpkg,bash,apt,findutils,diffutils}.mo", 3000),
    ("ar_msgs", "arabic", "ar", "apt, PackageKit, shared-mime-info, gtk+3.0 (gettext catalogues)", "GPL-2+ / LGPL-2.1+ (each program's licence)", "mo", "/usr/share/locale/ar/LC_MESSAGES/{apt,libapt-pkg6.0,PackageKit,shared-mime-info,gtk30,glib20}.mo", 3000),
    ("fa_msgs", "arabic", "fa", "gettext catalogues of the installed programs", "GPL-2+ / LGPL-2.1+ (each program's licence)", "mo", "/usr/share/locale/fa/LC_MESSAGES/*.mo", 1500),
    ("zh_faq", "cjk", "zh-cn", "debian-faq-zh-cn", "verbatim and modified copies permitted (the FAQ's permission notice)", "plain", "/usr/share/doc/debian/FAQ/debian-faq.zh-cn.txt.gz", 30000),
    ("zhtw_ref", "cjk", "zh-tw", "debian-reference-zh-tw", "GPL-2+", "html", "/usr/share/debian-reference/ch0[12].zh-tw.html", 12000),
    ("ja_maint", "cjk", "ja", "maint-guide-ja", "GPL-2+", "html", "/usr/share/doc/maint-guide-ja/html/*.html", 8000),
    ("ko_faq", "cjk", "ko", "debian-faq-ko", "verbatim and modified copies permitted (the FAQ's permission notice)", "plain", "/usr/share/doc/debian/FAQ/debian-faq.ko.txt.gz", 4000),
]

# Characters LaTeX treats specially, and others left out of every text so that
# the typeset text is the source text: \ { } $ & # ^ _ ~ % < > | @ * ` " and
# the typographic quotes TeX would make of '' and ``, and the technical and
# box-drawing characters groff draws brackets with (no text font has them).
DROP = re.compile(r'[\\{}$&#^_~%<>|@*`"\u2018\u2019\u201c\u201d\u00ab\u00bb\[\]\u2300-\u23ff\u2500-\u259f\u200b-\u200f\u2028\u2029\ufeff\x00-\x08\x0b-\x1f\x7f]')


def clean(s):
    s = DROP.sub(" ", s)
    s = re.sub(r"https?:\S+|ftp:\S+|www\.\S+", " ", s)
    s = s.replace("'", " ")
    s = re.sub(r"-{2,}|\.{3,}|…", " ", s)
    return re.sub(r"\s+", " ", s).strip()


CJK = "\u3040-\u30ff\u3400-\u9fff\uff00-\uffef\u3000-\u303f"


def join_cjk(s):
    """Drop the spaces a wrapped text file left between Han or kana characters."""
    return re.sub(f"(?<=[{CJK}]) (?=[{CJK}])", "", s)


def read(path):
    data = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
    return data.decode("utf-8", "replace")


def paragraphs_plain(text):
    out = []
    for block in re.split(r"\n\s*\n", text):
        p = join_cjk(clean(" ".join(block.split("\n"))))
        if len(p.split()) >= 6 or (re.search(r"[\u3000-\u9fff\uac00-\ud7af]", p) and len(p) >= 12):
            out.append(p)
    return out


class HTMLText(html.parser.HTMLParser):
    """Paragraph text of p, li, dd, h1-h3; pre, script, style and tables skipped."""
    BLOCK = {"p", "li", "dd", "h1", "h2", "h3", "title"}
    SKIP = {"pre", "script", "style", "table", "code", "tt", "title"}

    def __init__(self):
        super().__init__()
        self.paras, self.cur, self.skip, self.inblock = [], [], 0, 0

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skip += 1
        if tag in self.BLOCK:
            self.flush()
            self.inblock += 1

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.skip:
            self.skip -= 1
        if tag in self.BLOCK:
            self.flush()
            self.inblock = max(0, self.inblock - 1)

    def handle_data(self, data):
        if not self.skip and self.inblock:
            self.cur.append(data)

    def flush(self):
        p = clean(" ".join(self.cur))
        self.cur = []
        if len(p.split()) >= 4 or (re.search(r"[\u3000-\u9fff]", p) and len(p) >= 12):
            self.paras.append(p)


def paragraphs_html(paths):
    out = []
    for path in sorted(paths, key=lambda p: (not p.endswith(("index.ja.html", "index.de.html")), p)):
        h = HTMLText()
        h.feed(read(path))
        h.flush()
        out += h.paras
    return out


def paragraphs_man(paths, maxwords):
    out = []
    for path in sorted(paths):
        if sum(len(p.split()) for p in out) >= maxwords:
            break
        try:
            txt = subprocess.run(["sh", "-c", f"zcat '{path}' | preconv -e utf-8 | groff -man -rHY=0 -rLL=300n -Tutf8 -P-cbou 2>/dev/null"],
                                 capture_output=True, check=True).stdout.decode("utf-8", "replace")
        except subprocess.CalledProcessError:
            continue
        lines = [l for l in txt.split("\n") if not re.match(r"^\S.*\(\d\)\s*$", l) and not re.search(r"\(\d\)\s*$", l)]
        out += paragraphs_plain("\n".join(lines))
    return out


def mo_strings(path):
    """msgstr values of a gettext .mo file (format: magic, revision, count, offsets)."""
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic == 0x950412DE else ">"
    _, n, _, toff = struct.unpack(end + "4I", data[4:20])
    out = []
    for i in range(n):
        length, off = struct.unpack(end + "2I", data[toff + 8 * i: toff + 8 * i + 8])
        for s in data[off:off + length].decode("utf-8", "replace").split("\x00"):
            out.append(s)
    return out


def paragraphs_mo(paths):
    seen, sentences = set(), []
    for path in sorted(paths):
        for s in mo_strings(path):
            s = re.sub(r"%[-+ #0-9.*]*[hlLqjzt]*[a-zA-Z]|%\S+|\$\{?\w+\}?|\\n|&\w+;", " ", s)
            s = clean(s)
            if len(s.split()) >= 4 and s not in seen and not s.startswith("Project-Id"):
                seen.add(s)
                sentences.append(s)
    # about 60 words a paragraph
    out, cur = [], []
    for s in sentences:
        cur.append(s if s[-1] in ".!?؟;:。" else s + ".")
        if sum(len(c.split()) for c in cur) >= 60:
            out.append(" ".join(cur))
            cur = []
    if cur:
        out.append(" ".join(cur))
    return out


def cjk_len(p):
    """Words of a paragraph for the length cap: Han and kana count one each."""
    return len(p.split()) + len(re.findall(r"[\u3040-\u30ff\u3400-\u9fff]", p))


def cmd_texts(srcdir):
    os.makedirs(srcdir, exist_ok=True)
    rows = []
    for name, script, lang, pkg, lic, how, where, maxwords in SOURCES:
        paths = []
        for pat in re.sub(r"\{([^}]*)\}", lambda m: "(" + m.group(1) + ")", where).split():
            if "(" in pat:
                pre, alts, post = re.match(r"(.*)\((.*)\)(.*)", pat).groups()
                for a in alts.split(","):
                    paths += glob.glob(pre + a + post)
            else:
                paths += glob.glob(pat)
        if not paths:
            print(f"pdf_corpus_texts: {name}: nothing at {where} (install {pkg})", file=sys.stderr)
            continue
        if how == "plain":
            paras = paragraphs_plain("\n\n".join(read(p) for p in paths))
        elif how == "html":
            paras = paragraphs_html(paths)
        elif how == "man":
            paras = paragraphs_man(paths, maxwords)
        else:
            paras = paragraphs_mo(paths)
        if script == "arabic":
            # Latin words inside Arabic messages ("fix-missing") would need a
            # second font; the Arabic fonts draw them as empty boxes.
            paras = [re.sub(r"\s+", " ", re.sub(r"\S*[A-Za-z]\S*", " ", p)).strip() for p in paras]
            paras = [p for p in paras if len(p.split()) >= 4]
        if name == "en_short":
            paras = paras[2:4]
        out, n = [], 0
        for p in paras:
            if n >= maxwords:
                break
            out.append(p)
            n += cjk_len(p)
        if n < 40:
            print(f"pdf_corpus_texts: {name}: only {n} words, left out", file=sys.stderr)
            continue
        with open(os.path.join(srcdir, name + ".txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")
        rows.append((name, script, lang, pkg, lic, where))
        print(f"{name}: {n} words, {len(out)} paragraphs", file=sys.stderr)
    with open(os.path.join(srcdir, "SOURCES.tsv"), "w", encoding="utf-8") as f:
        f.write("name\tscript\tlang\tpackage\tlicence\torigin\n")
        for r in rows:
            f.write("\t".join(r) + "\n")


def xml_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


LO_FONTS = {"ar": "Noto Naskh Arabic", "fa": "Noto Naskh Arabic", "zh-cn": "Noto Serif CJK SC",
            "zh-tw": "Noto Serif CJK TC", "ja": "Noto Serif CJK JP", "ko": "Noto Serif CJK KR"}


def cmd_fodt(src, out, lang, kind):
    paras = [p for p in open(src, encoding="utf-8").read().split("\n") if p.strip()]
    font = LO_FONTS.get(lang, "Liberation Serif")
    rtl = lang in ("ar", "fa")
    body = ""
    if kind == "blank":
        body = "<text:p/>"
    elif kind == "form":
        # Three filled-in text fields before the body: their values are part of
        # the true text (the source file starts with them, see the shell script).
        fields = paras[:3]
        rest = paras[3:]
        ctrls = "".join(
            f'<form:text form:name="f{i}" form:id="c{i}" form:current-value="{xml_escape(v)}" form:value="{xml_escape(v)}"/>'
            for i, v in enumerate(fields))
        body = f'<office:forms><form:form form:name="Form">{ctrls}</form:form></office:forms>'
        for i, v in enumerate(fields):
            lines = max(1, len(v) // 70 + 1)
            body += (f'<text:p><draw:control draw:control="c{i}" text:anchor-type="as-char" svg:width="16cm" '
                     f'svg:height="{0.6 * lines:.1f}cm"/></text:p>')
        body += "".join(f"<text:p>{xml_escape(p)}</text:p>" for p in rest)
    else:
        body = "".join(f"<text:p>{xml_escape(p)}</text:p>" for p in paras)
    country = {"en": "GB", "de": "DE", "fr": "FR", "ru": "RU", "el": "GR", "ar": "EG", "zh-cn": "CN"}.get(lang, "")
    language = lang.split("-")[0]
    lang_attrs = (f'style:language-asian="{language}" style:font-name-asian="{font}"' if font.startswith("Noto Serif CJK") else "")
    if rtl:
        lang_attrs = f'style:language-complex="{language}" style:font-name-complex="{font}"'
    doc = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
 xmlns:form="urn:oasis:names:tc:opendocument:xmlns:form:1.0"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text">
<office:font-face-decls>
 <style:font-face style:name="{font}" svg:font-family="'{font}'"/>
</office:font-face-decls>
<office:styles>
 <style:default-style style:family="paragraph">
  <style:paragraph-properties fo:text-align="justify" fo:margin-bottom="0.2cm" style:writing-mode="{'rl-tb' if rtl else 'lr-tb'}"/>
  <style:text-properties style:font-name="{font}" fo:font-size="11pt" fo:language="{language}" fo:country="{country or 'none'}"
   style:font-size-asian="11pt" style:font-size-complex="13pt" {lang_attrs} fo:hyphenate="true"/>
 </style:default-style>
</office:styles>
<office:automatic-styles>
 <style:page-layout style:name="pm1">
  <style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="2cm" fo:margin-bottom="2cm" fo:margin-left="2.5cm" fo:margin-right="2.5cm"/>
 </style:page-layout>
</office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"/></office:master-styles>
<office:body><office:text>
{body}
</office:text></office:body>
</office:document>
"""
    open(out, "w", encoding="utf-8").write(doc)


XE_FONTS = {
    "ar": r"\setmainlanguage{arabic}\newfontfamily\arabicfont[Script=Arabic]{Noto Naskh Arabic}",
    "fa": r"\setmainlanguage{persian}\newfontfamily\persianfont[Script=Arabic]{Noto Naskh Arabic}",
    "ru": r"\setmainlanguage{russian}\setmainfont{Noto Serif}",
    "uk": r"\setmainlanguage{ukrainian}\setmainfont{Noto Serif}",
    "mk": r"\setmainlanguage{macedonian}\setmainfont{Noto Serif}",
    "el": r"\setmainlanguage{greek}\setmainfont{Noto Serif}",
    "zh-cn": r"\usepackage{xeCJK}\setCJKmainfont{Noto Serif CJK SC}\setmainfont{Noto Serif}",
    "zh-tw": r"\usepackage{xeCJK}\setCJKmainfont{Noto Serif CJK TC}\setmainfont{Noto Serif}",
    "ja": r"\usepackage{xeCJK}\setCJKmainfont{Noto Serif CJK JP}\setmainfont{Noto Serif}",
    "ko": r"\usepackage{xeCJK}\setCJKmainfont{Noto Serif CJK KR}\setmainfont{Noto Serif}\xeCJKsetup{CJKspace=true}",
}
PDFTEX_BABEL = {"en": "english", "de": "ngerman", "fr": "french", "cs": "czech", "pl": "polish", "tr": "turkish"}


def cmd_tex(src, out, lang, kind):
    paras = [p for p in open(src, encoding="utf-8").read().split("\n") if p.strip()]
    if kind == "xetex":
        pre = XE_FONTS.get(lang, r"\setmainfont{Noto Serif}")
        if "xeCJK" not in pre:
            pre = r"\usepackage{polyglossia}" + pre
            if lang not in XE_FONTS:
                pre = r"\usepackage{polyglossia}\setmainlanguage{" + {"vi": "vietnamese", "de": "german", "fr": "french", "cs": "czech", "pl": "polish", "tr": "turkish"}.get(lang, "english") + r"}\setmainfont{Noto Serif}"
        head = r"\documentclass[11pt,a4paper]{article}\usepackage{fontspec}" + pre
        body = "\n\n".join(paras)
    else:
        babel = PDFTEX_BABEL.get(lang, "english")
        if lang in ("ru", "uk"):
            # Cyrillic in pdfTeX: T2A encoding, cm-super Type 1 fonts (as most
            # Russian theses are typeset)
            head = (r"\documentclass[11pt,a4paper]{article}\usepackage[T2A]{fontenc}\usepackage[utf8]{inputenc}"
                    r"\usepackage[" + {"ru": "russian", "uk": "ukrainian"}[lang] + r"]{babel}")
        else:
            head = (r"\documentclass[11pt,a4paper]{article}\usepackage[T1]{fontenc}\usepackage[utf8]{inputenc}"
                    r"\usepackage{lmodern}\usepackage[" + babel + r"]{babel}")
        if lang == "fr":
            head += r"\frenchsetup{AutoSpacePunctuation=false}"
        if kind == "pdftex-2col":
            head = head.replace("article}", "article}", 1).replace("[11pt,a4paper]", "[10pt,a4paper,twocolumn]")
        if kind == "pdftex-tounicode":
            head += r"\input glyphtounicode\pdfgentounicode=1"
        if kind == "pdftex-foot":
            # Every third paragraph's last sentence becomes a footnote: the true
            # text keeps all words, only their place on the page changes.
            out_paras = []
            for i, p in enumerate(paras):
                parts = re.split(r"(?<=[.!?])\s+", p)
                if i % 3 == 1 and len(parts) > 1:
                    out_paras.append(" ".join(parts[:-1]) + r"\footnote{" + parts[-1] + "}")
                else:
                    out_paras.append(p)
            paras = out_paras
        body = "\n\n".join(paras)
    tex = head + "\n\\pagestyle{plain}\n\\begin{document}\n" + body + "\n\\end{document}\n"
    open(out, "w", encoding="utf-8").write(tex)


def cmd_broken(inp, out, how):
    data = open(inp, "rb").read()
    sx = data.rfind(b"startxref")
    if how == "truncated":
        # An interrupted download that lost only the tail: every object is
        # there, the xref table, trailer and startxref are not.
        x = data.rfind(b"\nxref")
        if x < 0:
            sys.exit(f"{inp}: no classic xref table")
        data = data[: x + 1]
    elif how == "cut92":
        # An interrupted download that lost the last 8% of the file: the
        # objects written last (LibreOffice writes the page tree there) are gone.
        data = data[: int(len(data) * 0.92)]
    elif how == "shifted":
        # 37 bytes of comment after the header: every xref offset is now wrong.
        nl = data.index(b"\n") + 1
        data = data[:nl] + b"%" + b"shifted-by-an-editor-that-added-this" + b"\n" + data[nl:]
    elif how == "noxref":
        # The classic xref table is gone; trailer and startxref stay.
        x = data.rfind(b"\nxref")
        t = data.find(b"trailer", x)
        if x < 0 or t < 0:
            sys.exit(f"{inp}: no classic xref table")
        data = data[: x + 1] + data[t:]
    elif how == "badstartxref":
        m = re.compile(rb"startxref\s+(\d+)").search(data, sx)
        data = data[: m.start(1)] + str(int(m.group(1)) // 2).encode() + data[m.end(1):]
    open(out, "wb").write(data)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"texts": cmd_texts, "fodt": cmd_fodt, "tex": cmd_tex, "broken": cmd_broken}[cmd](*args)

#!/usr/bin/env bash
# make-extract-fixtures.sh — (re)generate the extraction quality fixtures in
# extract/testdata from the source texts in extract/testdata/src.
#
# The generated files are committed, so tests and CI need none of the tools
# below; run this only to change or add fixtures. It is idempotent: every run
# deletes what it made before (everything in extract/testdata except src/) and
# makes it again. Byte-for-byte identical output is not promised (LibreOffice
# and qpdf embed dates and random IDs), the text content is.
#
# Tools (the versions the committed fixtures were made with, Debian 12):
#   LibreOffice Writer 7.4.7  soffice --headless --convert-to   (libreoffice-writer)
#   groff 1.22.4 with gropdf  groff -ms -Tpdf, preconv           (groff, not just groff-base)
#   poppler-utils 22.12.0     pdftoppm, pdftotext                (poppler-utils)
#   qpdf 11.3.0               qpdf --encrypt                     (qpdf)
#   img2pdf 0.4.4             image-only PDF from PNG pages      (img2pdf)
#   glibc iconv 2.36, python3 (standard library only), zip, head
#   fonts: Liberation and DejaVu (fonts-liberation, fonts-dejavu)
#   hyphenation patterns hyphen-cs 7.5.0 (LibreOffice's Czech hyphenation)
#   apt-get install -y libreoffice-writer groff poppler-utils qpdf img2pdf \
#           fonts-liberation fonts-dejavu hyphen-cs
#
# What it makes (see extract/testdata/manifest.tsv, written by this script,
# for the expected outcome of each file):
#   <src>.lo.{odt,docx,rtf,html,pdf}  LibreOffice conversions of each source text
#   <src>.web.html                    hand-written HTML with script, style,
#                                     comments, entities and navigation chrome
#   en_methods.2col.pdf, de_bericht.2col.pdf
#                                     groff -ms, two columns, justified,
#                                     hyphenation on, fi/fl/ff ligatures
#   en_paper.headfoot.pdf             groff, 4+ pages, running header, footer
#                                     and page number on every page
#   cs_proza.headfoot.pdf             LibreOffice (flat ODT), several pages,
#                                     header, footer "strana N z M"
#   cs_proza.2col.pdf                 LibreOffice, two columns, justified, Czech
#                                     hyphenation (needs hyphen-cs)
#   en_structured.tracked.{odt,docx}  heading, table, footnote, tracked insertion
#                                     and deletion (true text: src/en_structured.txt)
#   en_academic.scan.pdf, en_paper.scan.pdf
#                                     image-only (1 and 3 pages): pages rendered
#                                     to PNG, wrapped by img2pdf
#   en_academic.encrypted.pdf         qpdf AES-256, user password "user"
#   en_academic.restricted.pdf        qpdf AES-128, empty user password (opens
#                                     without a password, copying "forbidden")
#   cs_proza.{utf16le,cp1250,latin2}.txt, de_bericht.cp1252.txt   legacy encodings
#   broken/*                          truncated PDF and DOCX, zip bomb, garbage
#                                     named .txt, a PNG named .txt, empty DOCX, zero-byte file
#   *.intact                          for the hyphenation/ligature PDFs: the true
#                                     words (one per line, lower case) that the
#                                     typesetter hyphenated or set with a
#                                     ligature; each must come out whole
#
# Usage: scripts/make-extract-fixtures.sh   (from anywhere in the repository)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
td=$here/extract/testdata
src=$td/src

for tool in soffice groff preconv pdftoppm pdftotext qpdf img2pdf iconv python3 zip; do
	command -v "$tool" >/dev/null || { echo "missing tool: $tool (see the top of $0)" >&2; exit 1; }
done
groff -Tpdf </dev/null >/dev/null 2>&1 || { echo "groff cannot write PDF: install the full groff package (gropdf)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# LibreOffice needs a writable profile; a private one also avoids clashing with
# a running instance.
lo() { soffice -env:UserInstallation=file://"$work"/profile --headless "$@" >/dev/null 2>&1; }

# Start from a clean slate (src/ is the input and stays).
find "$td" -mindepth 1 -maxdepth 1 ! -name src -exec rm -rf {} +
mkdir -p "$td/broken"

manifest=$td/manifest.tsv
printf 'file\tsource\texpect\tnotes\n' >"$manifest"
row() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$manifest"; }

# --- LibreOffice conversions --------------------------------------------------
# Plain text is imported as UTF-8 with one paragraph per line, saved as ODT;
# every other format is converted from that ODT, as a student would "save as".
for name in en_academic cs_proza de_bericht; do
	cp "$src/$name.txt" "$work/$name.lo.txt"
	lo --infilter="Text (encoded):UTF8,LF,,," --convert-to odt --outdir "$work" "$work/$name.lo.txt"
	cp "$work/$name.lo.odt" "$td/"
	row "$name.lo.odt" "src/$name.txt" ok "LibreOffice: txt -> odt"
	for fmt in docx rtf pdf; do
		lo --convert-to "$fmt" --outdir "$td" "$td/$name.lo.odt"
		row "$name.lo.$fmt" "src/$name.txt" ok "LibreOffice: odt -> $fmt"
	done
	lo --convert-to "html:HTML (StarWriter):UTF8" --outdir "$td" "$td/$name.lo.odt"
	row "$name.lo.html" "src/$name.txt" ok "LibreOffice: odt -> html"
done

# --- hand-written HTML ---------------------------------------------------------
# Visible text is the source text; everything else (script, style, comments,
# head) must be dropped. Some letters are written as character references.
python3 - "$src" "$td" <<'EOF'
import html, sys, pathlib
src, td = map(pathlib.Path, sys.argv[1:])
for name in ["en_academic", "cs_proza", "de_bericht"]:
    paras = [p for p in (src / f"{name}.txt").read_text("utf-8").split("\n") if p.strip()]
    def esc(s):
        s = html.escape(s, quote=False)
        # numeric and named references for some letters
        return s.replace("ř", "&#x159;").replace("ü", "&uuml;").replace("ff", "f&#102;")
    body = [f"<h1>{esc(paras[0])}</h1>"] + [f"<p>{esc(p)}</p>" for p in paras[1:]]
    doc = f"""<!DOCTYPE html>
<html lang="{name[:2]}">
<head>
<meta charset="utf-8">
<style>p {{ margin: 0 0 1em; }} .hidden::after {{ content: "stylesheet words"; }}</style>
<script>var scriptWords = "these script words must not appear"; document.title = scriptWords;</script>
</head>
<body>
<!-- a comment with words that must not appear -->
<main>
{chr(10).join(body)}
</main>
<script type="application/ld+json">{{"note": "structured data words must not appear"}}</script>
<noscript></noscript>
</body>
</html>
"""
    (td / f"{name}.web.html").write_text(doc, "utf-8")
EOF
for name in en_academic cs_proza de_bericht; do
	row "$name.web.html" "src/$name.txt" ok "hand-written HTML5: script, style, comments, character references"
done

# --- groff: two columns, hyphenation, ligatures ---------------------------------
# ms_doc LANG COLUMNS TEXTFILE [REQUEST...] -> groff input on stdout: the first
# line as .TL, the other non-empty lines as .PP paragraphs; the REQUESTs (ms
# registers and strings) go before the title.
ms_doc() {
	python3 - "$@" <<'EOF'
import sys
lang, cols, path, requests = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
paras = [p for p in open(path, encoding="utf-8").read().split("\n") if p.strip()]
esc = lambda s: s.replace("\\", "\\e")
out = [".mso de.tmac"] if lang == "de" else []
# HY=1: hyphenate wherever the patterns allow; CH empty: no "- N -" page header.
out += [".nr HY 1", ".ds CH"] + requests + [".TL", esc(paras[0])]
if cols == "2":
    out.append(".2C")
for p in paras[1:]:
    out += [".PP", ("\\&" if p[0] in ".'" else "") + esc(p)]
print("\n".join(out))
EOF
}
ms_doc en 2 "$src/en_methods.txt" | preconv | groff -ms -Tpdf >"$td/en_methods.2col.pdf"
row en_methods.2col.pdf src/en_methods.txt ok "groff -ms -Tpdf: two columns, justified, hyphenation, ligatures"
ms_doc de 2 "$src/de_bericht.txt" | preconv | groff -ms -Tpdf >"$td/de_bericht.2col.pdf"
row de_bericht.2col.pdf src/de_bericht.txt ok "groff -ms -mde -Tpdf: two columns, German hyphenation, ligatures"

# --- groff: running header, footer, page numbers on every page -------------------
# Large type on a narrow measure so that two short texts fill several pages.
# ms prints no header on page 1 by default; .nr HM and the first-page trap are
# left alone, so page 1 has the footer only, later pages header and footer.
cat "$src/en_academic.txt" "$src/en_methods.txt" >"$work/en_paper.txt"
ms_doc en 1 "$work/en_paper.txt" '.nr PS 14' '.nr VS 18' '.nr LL 4.5i' \
	'.ds LH Journal of Academic Integrity' '.ds RH Vol. 12, 2024' \
	'.ds LF Draft version' '.ds CF Page %' '.ds RF University Press' |
	preconv | groff -ms -Tpdf >"$td/en_paper.headfoot.pdf"
row en_paper.headfoot.pdf "src/en_academic.txt+src/en_methods.txt" ok "groff: several pages, running header (pages 2-), footer and page number on every page; source is en_academic then en_methods"

# --- LibreOffice: header and footer on every page (flat ODT) ---------------------
python3 - "$src/cs_proza.txt" "$work/cs_proza.headfoot.fodt" <<'EOF'
import sys, html
paras = [p for p in open(sys.argv[1], encoding="utf-8").read().split("\n") if p.strip()]
body = "\n".join(f"<text:p>{html.escape(p, quote=False)}</text:p>" for p in paras)
doc = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text">
<office:styles>
 <style:default-style style:family="paragraph">
  <style:paragraph-properties fo:margin-bottom="0.4cm" fo:line-height="200%" fo:text-align="justify"/>
  <style:text-properties fo:font-family="'Liberation Serif'" fo:font-size="20pt" fo:language="cs" fo:country="CZ"/>
 </style:default-style>
</office:styles>
<office:automatic-styles>
 <style:page-layout style:name="pm1">
  <style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="2cm" fo:margin-bottom="2cm" fo:margin-left="4cm" fo:margin-right="4cm"/>
  <style:header-style><style:header-footer-properties fo:min-height="0cm" fo:margin-bottom="0.5cm"/></style:header-style>
  <style:footer-style><style:header-footer-properties fo:min-height="0cm" fo:margin-top="0.5cm"/></style:footer-style>
 </style:page-layout>
 <style:style style:name="HF" style:family="paragraph"><style:text-properties fo:font-size="10pt"/></style:style>
</office:automatic-styles>
<office:master-styles>
 <style:master-page style:name="Standard" style:page-layout-name="pm1">
  <style:header><text:p text:style-name="HF">Univerzita Karlova, Filozofická fakulta – Ústav českého jazyka</text:p></style:header>
  <style:footer><text:p text:style-name="HF">Diplomová práce, Praha 2024 – strana <text:page-number text:select-page="current">1</text:page-number> z <text:page-count>1</text:page-count></text:p></style:footer>
 </style:master-page>
</office:master-styles>
<office:body><office:text>
{body}
</office:text></office:body>
</office:document>
"""
open(sys.argv[2], "w", encoding="utf-8").write(doc)
EOF
lo --convert-to pdf --outdir "$work" "$work/cs_proza.headfoot.fodt"
cp "$work/cs_proza.headfoot.pdf" "$td/"
row cs_proza.headfoot.pdf src/cs_proza.txt ok "LibreOffice flat ODT: several pages, header, footer with 'strana N z M' on every page"

# --- LibreOffice: two columns, justified, hyphenated Czech (flat ODT) --------------
# groff's fonts lack ř, ů and ě, so the Czech hyphenation fixture comes from
# LibreOffice with the hyphen-cs patterns (package hyphen-cs).
python3 - "$src/cs_proza.txt" "$work/cs_proza.2col.fodt" <<'EOF'
import sys, html
paras = [p for p in open(sys.argv[1], encoding="utf-8").read().split("\n") if p.strip()]
body = "\n".join(f"<text:p>{html.escape(p, quote=False)}</text:p>" for p in paras)
doc = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text">
<office:styles>
 <style:default-style style:family="paragraph">
  <style:paragraph-properties fo:text-align="justify" fo:margin-bottom="0.2cm"/>
  <style:text-properties fo:font-family="'Liberation Serif'" fo:font-size="11pt" fo:language="cs" fo:country="CZ"
   fo:hyphenate="true" fo:hyphenation-remain-char-count="2" fo:hyphenation-push-char-count="2"/>
 </style:default-style>
</office:styles>
<office:automatic-styles>
 <style:page-layout style:name="pm1">
  <style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="2cm" fo:margin-bottom="2cm" fo:margin-left="2cm" fo:margin-right="2cm">
   <style:columns fo:column-count="2" fo:column-gap="0.8cm"/>
  </style:page-layout-properties>
 </style:page-layout>
</office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"/></office:master-styles>
<office:body><office:text>
{body}
</office:text></office:body>
</office:document>
"""
open(sys.argv[2], "w", encoding="utf-8").write(doc)
EOF
lo --convert-to pdf --outdir "$work" "$work/cs_proza.2col.fodt"
cp "$work/cs_proza.2col.pdf" "$td/"
row cs_proza.2col.pdf src/cs_proza.txt ok "LibreOffice flat ODT: two columns, justified, Czech hyphenation (hyphen-cs)"

# --- structured document: table, footnote, tracked changes ----------------------------
# src/en_structured.txt is its true text: body, table cells row by row, the
# tracked insertion ("recently"), not the tracked deletion, and the footnote
# text last. Made as flat ODT, saved as ODT and DOCX.
cat >"$work/en_structured.fodt" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 xmlns:dc="http://purl.org/dc/elements/1.1/"
 office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text">
<office:body><office:text>
<text:tracked-changes text:track-changes="true">
 <text:changed-region text:id="ct1">
  <text:deletion>
   <office:change-info><dc:creator>Supervisor</dc:creator><dc:date>2024-05-02T10:00:00</dc:date></office:change-info>
   <text:p> because the supervisor insisted on exporting it</text:p>
  </text:deletion>
 </text:changed-region>
 <text:changed-region text:id="ct2">
  <text:insertion>
   <office:change-info><dc:creator>Supervisor</dc:creator><dc:date>2024-05-02T10:01:00</dc:date></office:change-info>
  </text:insertion>
 </text:changed-region>
</text:tracked-changes>
<text:h text:outline-level="1">Survey of Submission Formats</text:h>
<text:p>The archive office counted the file formats of the theses submitted in the last academic year.<text:note text:id="ftn1" text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>Figures from the faculty registry, rounded to whole numbers.</text:p></text:note-body></text:note></text:p>
<table:table table:name="Formats">
 <table:table-column table:number-columns-repeated="3"/>
 <table:table-row><table:table-cell office:value-type="string"><text:p>Format</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>Theses</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>Share</text:p></table:table-cell></table:table-row>
 <table:table-row><table:table-cell office:value-type="string"><text:p>PDF</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>1840</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>81 percent</text:p></table:table-cell></table:table-row>
 <table:table-row><table:table-cell office:value-type="string"><text:p>DOCX</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>312</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>14 percent</text:p></table:table-cell></table:table-row>
 <table:table-row><table:table-cell office:value-type="string"><text:p>ODT</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>98</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>4 percent</text:p></table:table-cell></table:table-row>
 <table:table-row><table:table-cell office:value-type="string"><text:p>other</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>21</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>1 percent</text:p></table:table-cell></table:table-row>
</table:table>
<text:p>Most students <text:change-start text:change-id="ct2"/>recently <text:change-end text:change-id="ct2"/>submitted a portable document file<text:change text:change-id="ct1"/>, and the share of word processor files is falling.</text:p>
<text:p>Efficient conversion of the remaining files is a difficult problem for small offices, and the staff asked for a reliable tool.</text:p>
</office:text></office:body>
</office:document>
EOF
for fmt in odt docx; do
	lo --convert-to "$fmt" --outdir "$td" "$work/en_structured.fodt"
	mv "$td/en_structured.$fmt" "$td/en_structured.tracked.$fmt"
	row "en_structured.tracked.$fmt" src/en_structured.txt ok "LibreOffice: heading, table, footnote, tracked insertion (kept) and deletion (dropped)"
done

# --- .intact lists for the typeset PDFs -----------------------------------------
# The words the typesetter hyphenated at a line end (found in pdftotext -raw
# output: a line ending in a hyphen whose join with the next line's first word
# is a true word) and the true words with fi/fl/ff letter pairs (ligature candidates).
intact() { # PDF SOURCE...
	local pdf=$1; shift
	pdftotext -raw "$pdf" "$work/raw.txt"
	python3 - "$work/raw.txt" "$@" >"${pdf%.pdf}.intact" <<'EOF'
import re, sys
tok = lambda s: re.findall(r"[^\W_]+", s.lower())
truth = []
for p in sys.argv[2:]:
    truth += tok(open(p, encoding="utf-8").read())
vocab = set(truth)
words = {w for w in truth if re.search("ff|fi|fl", w)}
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
for a, b in zip(lines, lines[1:]):
    m = re.search(r"([^\W\d_]+)[-\u2010\u00ad]$", a.rstrip())
    n = re.match(r"\s*([^\W\d_]+)", b)
    if m and n and (m.group(1) + n.group(1)).lower() in vocab:
        words.add((m.group(1) + n.group(1)).lower())
print("\n".join(sorted(words)))
EOF
}
intact "$td/en_methods.2col.pdf" "$src/en_methods.txt"
intact "$td/de_bericht.2col.pdf" "$src/de_bericht.txt"
intact "$td/en_paper.headfoot.pdf" "$work/en_paper.txt"
intact "$td/cs_proza.2col.pdf" "$src/cs_proza.txt"

# --- scanned (image-only) PDF ------------------------------------------------------
# Both pages of the LibreOffice PDF at 200 dpi, 1 bit per pixel, as a scanner would.
pdftoppm -r 200 -mono -png "$td/en_academic.lo.pdf" "$work/scan"
img2pdf --output "$td/en_academic.scan.pdf" "$work"/scan-*.png
row en_academic.scan.pdf src/en_academic.txt no_text_layer "img2pdf of pdftoppm -r 200 -mono pages: no text layer (OCR, when enabled, is scored against the source)"
# Three pages (the groff paper with its running header and footer): the reason
# must give the page count; OCR is scored against the body text, so header and
# footer lines, which OCR reads too, lower its precision a little.
pdftoppm -r 200 -mono -png "$td/en_paper.headfoot.pdf" "$work/paper"
img2pdf --output "$td/en_paper.scan.pdf" "$work"/paper-*.png
row en_paper.scan.pdf "src/en_academic.txt+src/en_methods.txt" no_text_layer "img2pdf of the 3 pages of en_paper.headfoot.pdf at 200 dpi, 1 bit"

# --- encrypted PDFs ------------------------------------------------------------------
qpdf --encrypt user owner 256 -- "$td/en_academic.lo.pdf" "$td/en_academic.encrypted.pdf"
row en_academic.encrypted.pdf src/en_academic.txt encrypted "qpdf --encrypt user owner 256: needs the user password"
qpdf --encrypt "" owner 128 --use-aes=y --extract=n --modify=none -- "$td/en_academic.lo.pdf" "$td/en_academic.restricted.pdf"
row en_academic.restricted.pdf src/en_academic.txt ok "qpdf AES-128 with an empty user password and copying forbidden: every viewer opens it without asking, so must plagd"

# --- plain text in legacy encodings ---------------------------------------------------
{ printf '\xff\xfe'; iconv -f UTF-8 -t UTF-16LE "$src/cs_proza.txt"; } >"$td/cs_proza.utf16le.txt"
row cs_proza.utf16le.txt src/cs_proza.txt ok "UTF-16 LE with BOM"
iconv -f UTF-8 -t WINDOWS-1250 "$src/cs_proza.txt" >"$td/cs_proza.cp1250.txt"
row cs_proza.cp1250.txt src/cs_proza.txt ok "Windows-1250, no BOM"
iconv -f UTF-8 -t ISO-8859-2 "$src/cs_proza.txt" >"$td/cs_proza.latin2.txt"
row cs_proza.latin2.txt src/cs_proza.txt ok "ISO-8859-2, no BOM"
iconv -f UTF-8 -t WINDOWS-1252 "$src/de_bericht.txt" >"$td/de_bericht.cp1252.txt"
row de_bericht.cp1252.txt src/de_bericht.txt ok "Windows-1252, no BOM"

# --- broken and hostile files ------------------------------------------------------------
b=$td/broken
size=$(stat -c %s "$td/en_academic.lo.pdf")
head -c $((size * 6 / 10)) "$td/en_academic.lo.pdf" >"$b/truncated.pdf"
row broken/truncated.pdf - corrupt "first 60% of en_academic.lo.pdf (no xref, no trailer)"
size=$(stat -c %s "$td/cs_proza.lo.docx")
head -c $((size / 2)) "$td/cs_proza.lo.docx" >"$b/truncated.docx"
row broken/truncated.docx - corrupt "first half of cs_proza.lo.docx (no ZIP central directory)"
# An empty document: LibreOffice's conversion of an empty text file.
: >"$work/empty.txt"
lo --infilter="Text (encoded):UTF8,LF,,," --convert-to docx --outdir "$work" "$work/empty.txt"
cp "$work/empty.docx" "$b/empty.docx"
row broken/empty.docx - empty "valid DOCX made by LibreOffice from an empty file"
: >"$b/zero-bytes.pdf"
row broken/zero-bytes.pdf - empty "a zero-byte file named .pdf"
# Seeded pseudo-random bytes, so that reruns make the same file.
python3 -c 'import random,sys; r=random.Random(3); sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(4096)))' >"$b/garbage.txt"
row broken/garbage.txt - binary "4 KiB of pseudo-random bytes named .txt"
pdftoppm -r 40 -gray -png -f 1 -l 1 -singlefile "$td/en_academic.lo.pdf" "$b/picture"
mv "$b/picture.png" "$b/picture.txt"
row broken/picture.txt - binary "a PNG image named .txt"
# Zip bomb disguised as DOCX: a real DOCX skeleton whose word/document.xml is a
# valid document holding 100 MiB of spaces in one run. It deflates to ~100 KiB.
# The default cap (extract.DefaultMaxUnzipped, 1 GiB) is above 100 MiB, so the
# quality test reads it with MaxUnzipped = 32 MiB (the opt: in notes); without
# any cap a parser would read it all and report an empty document.
python3 - "$b/zipbomb.docx" <<'EOF'
import sys, zipfile, zlib
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
ct = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
      '<Default Extension="xml" ContentType="application/xml"/>'
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
      '</Types>')
rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>'
        '</Relationships>')
head = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document {W}><w:body><w:p><w:r><w:t xml:space="preserve">'
tail = '</w:t></w:r></w:p></w:body></w:document>'
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    z.writestr("[Content_Types].xml", ct)
    z.writestr("_rels/.rels", rels)
    with z.open("word/document.xml", "w", force_zip64=True) as f:
        f.write(head.encode())
        chunk = b" " * (1 << 20)
        for _ in range(100):
            f.write(chunk)
        f.write(tail.encode())
EOF
row broken/zipbomb.docx - "too_large|corrupt" "opt:max_unzipped=33554432; DOCX whose document.xml inflates to 100 MiB of spaces (file ~100 KiB)"

echo "fixtures in $td:"
du -sh "$td"
wc -l <"$manifest" | xargs -I{} echo "manifest rows (with header): {}"

#!/usr/bin/env bash
# Builds a corpus of real-world-like PDFs for `plagd-lab extract-eval --corpus DIR`
# (issue 15): many producers, five scripts, long and short documents, scans
# with and without an OCR text layer, broken files a viewer repairs, and files
# that must fail with a given kind.
#
#   scripts/make-pdf-corpus.sh OUTDIR                  # the full corpus (about 190 PDFs)
#   scripts/make-pdf-corpus.sh --slice SLICEDIR OUTDIR # copy the CI slice out of OUTDIR
#   scripts/make-pdf-corpus.sh --install              # apt-get install the tools below
#
# The CI slice is extract/testdata/realworld (tested by extract/realworld_test.go):
#   scripts/make-pdf-corpus.sh /work/corpora/realworld
#   scripts/make-pdf-corpus.sh --slice extract/testdata/realworld /work/corpora/realworld
#
# OUTDIR gets <name>.pdf, src/<name>.txt (the true text each PDF was made from),
# src/SOURCES.tsv and README.md (where each text comes from, under which
# licence) and manifest.tsv: file, producer, script, source, expect, notes
# (source: the true text relative to OUTDIR or "-"; expect: "ok" or the
# acceptable failure kinds, separated by "|"). Rerunning rebuilds everything.
#
# Tools (Debian 12 packages; made with these versions):
#   LibreOffice 7.4.7 (libreoffice-writer-nogui), TeX Live 2022 (texlive-latex-base,
#   -latex-recommended, -xetex, -lang-cyrillic, -lang-greek, -lang-arabic,
#   -lang-chinese, -lang-german, -lang-french, -lang-czechslovak, -lang-polish,
#   -lang-european, lmodern, cm-super), fonts-noto-core, fonts-noto-cjk,
#   fonts-dejavu, fonts-liberation, Ghostscript 10.0.0, groff 1.22.4,
#   GNU enscript 1.6.5.90, a2ps 4.14, qpdf 11.3.0, poppler-utils 22.12.0,
#   ImageMagick 6.9.11 (noise and rotation of scans, seeded), img2pdf 0.4.4,
#   tesseract 5.3.0 (eng, deu, rus), ocrmypdf 14.0.1, python3 (no modules).
# Source texts: Debian documentation packages (scripts/pdf_corpus_texts.py
# lists them): debian-faq{,-de,-ru,-ko,-zh-cn}, debian-history, maint-guide-{de,fr,
# vi,ru,ja}, debian-reference-zh-tw, manpages-{cs,pl,tr,uk,mk,el}, base-files'
# common-licenses and installed gettext catalogues (Greek, Arabic, Persian).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
py="python3 $here/pdf_corpus_texts.py"

packages=(libreoffice-writer-nogui texlive-latex-base texlive-latex-recommended texlive-xetex
	texlive-lang-cyrillic texlive-lang-greek texlive-lang-arabic texlive-lang-chinese
	texlive-lang-german texlive-lang-french texlive-lang-czechslovak texlive-lang-polish texlive-lang-european lmodern cm-super
	fonts-noto-core fonts-noto-cjk fonts-dejavu fonts-liberation ghostscript groff qpdf poppler-utils
	mupdf-tools tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-rus ocrmypdf img2pdf
	enscript a2ps imagemagick
	debian-faq debian-faq-de debian-faq-ru debian-faq-ko debian-faq-zh-cn debian-history
	maint-guide-de maint-guide-fr maint-guide-vi maint-guide-ru maint-guide-ja debian-reference-zh-tw
	manpages-cs manpages-pl manpages-tr manpages-uk manpages-mk manpages-el)

if [ "${1:-}" = --install ]; then
	apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"
	exit
fi

# --slice: copy the files named in $slice_files, with their true texts, into a
# folder with its own manifest and README.
slice_files=(
	lo.en_apache.pdf lo.ko_faq.pdf lo-pdfa.ru_maint.pdf lo-tagged.el_msgs.pdf lo-form.de_maint.pdf
	lo.ar_msgs.pdf lo-blank.pdf lo-tiny.pdf
	pdftex.cs_man.pdf pdftex-2col.en_apache.pdf pdftex-foot.de_maint.pdf pdftex-tounicode.pl_man.pdf
	xetex.uk_man.pdf xetex.el_man.pdf xetex.fa_msgs.pdf xetex.ja_maint.pdf xetex.vi_maint.pdf
	gs-groff.en_apache.pdf gs-enscript.en_short.pdf gs-a2ps.en_apache.pdf gs-reprint.ru_maint.pdf
	ocr.en_short.pdf ocr.ru_maint.pdf tesseract.en_short.pdf scan.en_short.pdf outlines.en_short.pdf outlines.mk_man.pdf
	broken-truncated.pdftex.tr_man.pdf broken-shifted.pdftex.tr_man.pdf broken-noxref.lo.en_short.pdf
	broken-badstartxref.lo.en_short.pdf broken-cut92.lo.en_short.pdf
	qpdf-objstm.pdftex.tr_man.pdf qpdf-linear.lo.en_short.pdf qpdf-owner.xetex.mk_man.pdf
	qpdf-rc4.lo.en_short.pdf qpdf-user.lo.en_short.pdf pdftex-blank.pdf
)
if [ "${1:-}" = --slice ]; then
	dst=$2 src=$3
	[ -f "$src/manifest.tsv" ] || { echo "make-pdf-corpus: $src/manifest.tsv missing: build the corpus first (scripts/make-pdf-corpus.sh $src)" >&2; exit 1; }
	rm -rf "$dst" && mkdir -p "$dst/src"
	head -1 "$src/manifest.tsv" >"$dst/manifest.tsv"
	for f in "${slice_files[@]}"; do
		line=$(awk -F'\t' -v f="$f" '$1 == f' "$src/manifest.tsv")
		[ -n "$line" ] || { echo "make-pdf-corpus: $f is not in $src/manifest.tsv" >&2; exit 1; }
		cp "$src/$f" "$dst/"
		s=$(printf '%s\n' "$line" | cut -f4)
		[ "$s" = - ] || cp "$src/$s" "$dst/$s"
		printf '%s\n' "$line" >>"$dst/manifest.tsv"
	done
	cp "$src/src/SOURCES.tsv" "$dst/src/"
	sed 's/^# Real-world PDF corpus/# Real-world PDF corpus: the CI slice/' "$src/README.md" >"$dst/README.md"
	du -sh "$dst"
	exit
fi

out=${1:?usage: scripts/make-pdf-corpus.sh OUTDIR | --slice SLICEDIR OUTDIR | --install}
for t in soffice mutool pdflatex xelatex gs groff enscript a2ps qpdf pdftotext pdftoppm img2pdf tesseract /usr/bin/convert; do
	command -v "$t" >/dev/null || { echo "make-pdf-corpus: $t is missing: run scripts/make-pdf-corpus.sh --install (as root)" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
find "$out" -maxdepth 1 -name '*.pdf' -delete
rm -rf "$out/src" "$out/.ref" && mkdir -p "$out/src"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1700000000 FORCE_SOURCE_DATE=1 # TeX and ghostscript dates: reproducible files

$py texts "$out/src"
manifest=$out/manifest.tsv
printf 'file\tproducer\tscript\tsource\texpect\tnotes\n' >"$manifest"
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$manifest"; }
# script and language of a text, from src/SOURCES.tsv
script_of() { awk -F'\t' -v n="$1" '$1 == n {print $2}' "$out/src/SOURCES.tsv"; }
lang_of() { awk -F'\t' -v n="$1" '$1 == n {print $3}' "$out/src/SOURCES.tsv"; }
texts=$(awk -F'\t' 'NR > 1 {print $1}' "$out/src/SOURCES.tsv")
# words a viewer reads in a PDF: the more of pdftotext's and mutool's counts
words() {
	local a b
	a=$({ pdftotext -enc UTF-8 "$1" - 2>/dev/null || true; } | wc -w)
	b=$({ mutool draw -q -F txt -o - "$1" 2>/dev/null || true; } | wc -w)
	echo $((a > b ? a : b))
}

# --- LibreOffice Writer: plain, PDF/A-2b, tagged, a filled-in form ------------------
lo() { soffice --headless --norestore "-env:UserInstallation=file://$work/lo-profile" "$@" >/dev/null 2>&1; }
for n in $texts; do $py fodt "$out/src/$n.txt" "$work/$n.fodt" "$(lang_of "$n")" plain; done
mkdir -p "$work/lo" "$work/lopdfa" "$work/lotag"
lo --convert-to pdf --outdir "$work/lo" "$work"/*.fodt
for n in $texts; do
	cp "$work/lo/$n.pdf" "$out/lo.$n.pdf"
	row "lo.$n.pdf" libreoffice "$(script_of "$n")" "src/$n.txt" ok "LibreOffice 7.4 Writer, flat ODT to PDF, justified, hyphenated"
done
pdfa_texts="en_constitution de_faq ru_maint el_msgs ar_msgs zhtw_ref vi_maint pl_man"
for n in $pdfa_texts; do cp "$work/$n.fodt" "$work/lopdfa/"; cp "$work/$n.fodt" "$work/lotag/"; done
lo --convert-to 'pdf:writer_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"2"}}' --outdir "$work/lopdfa" "$work"/lopdfa/*.fodt
lo --convert-to 'pdf:writer_pdf_Export:{"UseTaggedPDF":{"type":"boolean","value":"true"}}' --outdir "$work/lotag" "$work"/lotag/*.fodt
for n in $pdfa_texts; do
	cp "$work/lopdfa/$n.pdf" "$out/lo-pdfa.$n.pdf"
	row "lo-pdfa.$n.pdf" libreoffice-pdfa "$(script_of "$n")" "src/$n.txt" ok "LibreOffice PDF/A-2b export"
	cp "$work/lotag/$n.pdf" "$out/lo-tagged.$n.pdf"
	row "lo-tagged.$n.pdf" libreoffice-tagged "$(script_of "$n")" "src/$n.txt" ok "LibreOffice tagged PDF (structure tree, accessibility)"
done
# Forms: the first three paragraphs are the values of filled-in text fields.
mkdir -p "$work/loform"
for n in en_apache de_maint ru_maint el_msgs; do $py fodt "$out/src/$n.txt" "$work/loform/$n.fodt" "$(lang_of "$n")" form; done
lo --convert-to pdf --outdir "$work/loform" "$work"/loform/*.fodt
for n in en_apache de_maint ru_maint el_msgs; do
	cp "$work/loform/$n.pdf" "$out/lo-form.$n.pdf"
	row "lo-form.$n.pdf" libreoffice-form "$(script_of "$n")" "src/$n.txt" ok "LibreOffice form: the first 3 paragraphs are values of filled-in text fields (widget annotations), the rest body text"
done
# Blank and very short documents.
mkdir -p "$work/loshort"
printf '\n' >"$out/src/blank.txt"
printf 'Submitted thesis draft\n' >"$out/src/tiny.txt"
printf 'The committee accepted the thesis on the condition that the second chapter is revised.\n' >"$out/src/short.txt"
$py fodt "$out/src/blank.txt" "$work/loshort/blank.fodt" en blank
$py fodt "$out/src/tiny.txt" "$work/loshort/tiny.fodt" en plain
$py fodt "$out/src/short.txt" "$work/loshort/short.fodt" en plain
lo --convert-to pdf --outdir "$work/loshort" "$work"/loshort/*.fodt
cp "$work/loshort/blank.pdf" "$out/lo-blank.pdf"
row lo-blank.pdf libreoffice - - empty "LibreOffice: one blank page, nothing drawn"
cp "$work/loshort/tiny.pdf" "$out/lo-tiny.pdf"
row lo-tiny.pdf libreoffice latin src/tiny.txt too_short "LibreOffice: 3 words, fewer than one chunk"
cp "$work/loshort/short.pdf" "$out/lo-short.pdf"
row lo-short.pdf libreoffice latin src/short.txt ok "LibreOffice: one sentence of 15 words"

# --- pdfTeX: Type 1 fonts (Latin Modern, T1), hyphenation, two columns, footnotes ------
tex() { # ENGINE TEXFILE: compile in $work/tex, quietly; the PDF lands next to the .tex
	(cd "$(dirname "$2")" && "$1" -interaction=batchmode -halt-on-error "$(basename "$2")" >/dev/null 2>&1) ||
		{ echo "make-pdf-corpus: $1 failed on $2 (see ${2%.tex}.log)" >&2; return 1; }
}
mkdir -p "$work/tex"
pdftex_texts="en_gpl3 en_faq en_constitution en_apache en_short de_faq de_maint fr_maint cs_man pl_man tr_man ru_maint uk_man"
for n in $pdftex_texts; do
	for kind in pdftex pdftex-2col; do
		$py tex "$out/src/$n.txt" "$work/tex/$kind.$n.tex" "$(lang_of "$n")" "$kind"
		tex pdflatex "$work/tex/$kind.$n.tex" || continue
		cp "$work/tex/$kind.$n.pdf" "$out/"
		row "$kind.$n.pdf" "$kind" "$(script_of "$n")" "src/$n.txt" ok "pdfLaTeX, Type 1 fonts (Latin Modern T1; cm-super T2A for Cyrillic), babel hyphenation$([ $kind = pdftex-2col ] && echo ', two columns, 10 pt')"
	done
done
for n in en_constitution de_maint fr_maint cs_man; do
	$py tex "$out/src/$n.txt" "$work/tex/pdftex-foot.$n.tex" "$(lang_of "$n")" pdftex-foot
	tex pdflatex "$work/tex/pdftex-foot.$n.tex" && cp "$work/tex/pdftex-foot.$n.pdf" "$out/" &&
		row "pdftex-foot.$n.pdf" pdftex-foot latin "src/$n.txt" ok "pdfLaTeX: every third paragraph's last sentence is a footnote"
done
for n in en_apache pl_man tr_man de_faq; do
	$py tex "$out/src/$n.txt" "$work/tex/pdftex-tounicode.$n.tex" "$(lang_of "$n")" pdftex-tounicode
	tex pdflatex "$work/tex/pdftex-tounicode.$n.tex" && cp "$work/tex/pdftex-tounicode.$n.pdf" "$out/" &&
		row "pdftex-tounicode.$n.pdf" pdftex latin "src/$n.txt" ok "pdfLaTeX with glyphtounicode and \\pdfgentounicode=1 (ToUnicode maps)"
done
printf '\\documentclass{article}\\begin{document}\\thispagestyle{empty}\\null\\end{document}\n' >"$work/tex/pdftex-blank.tex"
tex pdflatex "$work/tex/pdftex-blank.tex" && cp "$work/tex/pdftex-blank.pdf" "$out/"
row pdftex-blank.pdf pdftex - - empty "pdfLaTeX: an empty page (\\null, no page number)"

# --- XeTeX: OpenType fonts (Noto), every script ------------------------------------
for n in $texts; do
	[ "$n" = en_short ] && continue
	$py tex "$out/src/$n.txt" "$work/tex/xetex.$n.tex" "$(lang_of "$n")" xetex
	tex xelatex "$work/tex/xetex.$n.tex" || continue
	cp "$work/tex/xetex.$n.pdf" "$out/"
	row "xetex.$n.pdf" xetex "$(script_of "$n")" "src/$n.txt" ok "XeLaTeX, fontspec/polyglossia or xeCJK, Noto OpenType fonts"
done

# --- Ghostscript as a PDF printer: groff, enscript and a2ps PostScript, reprinted PDFs ----
for n in en_apache en_constitution en_gpl3 de_maint; do
	preconv -e utf-8 "$out/src/$n.txt" | sed 's/^[.'"'"']/\\\&&/' | { echo '.nr HY 1'; echo '.LP'; sed 's/$/\n.PP/'; } |
		groff -ms -Tps $([ "$n" = de_maint ] && echo -mde) 2>/dev/null >"$work/$n.groff.ps"
	ps2pdf "$work/$n.groff.ps" "$out/gs-groff.$n.pdf"
	row "gs-groff.$n.pdf" ghostscript-groff latin "src/$n.txt" ok "groff -ms -Tps (hyphenation on), then ps2pdf (Ghostscript pdfwrite)"
done
for n in en_short en_gpl3 en_apache; do
	fold -s -w 78 "$out/src/$n.txt" | enscript -B -q --word-wrap -X latin1 -o "$work/$n.en.ps" 2>/dev/null
	ps2pdf "$work/$n.en.ps" "$out/gs-enscript.$n.pdf"
	row "gs-enscript.$n.pdf" ghostscript-enscript latin "src/$n.txt" ok "GNU enscript (Courier, no header), then ps2pdf: a printed text file"
done
for n in en_apache en_faq de_faq; do
	iconv -f UTF-8 -t LATIN1//TRANSLIT "$out/src/$n.txt" | fold -s -w 80 >"$work/$n.a2ps.txt"
	if iconv -f LATIN1 -t UTF-8 "$work/$n.a2ps.txt" | tr '\n' ' ' | cmp -s - <(fold -s -w 80 "$out/src/$n.txt" | tr '\n' ' '); then
		a2ps -q -1 --no-header --borders=no -X latin1 -o "$work/$n.a2ps.ps" "$work/$n.a2ps.txt" 2>/dev/null
		ps2pdf "$work/$n.a2ps.ps" "$out/gs-a2ps.$n.pdf"
		row "gs-a2ps.$n.pdf" ghostscript-a2ps latin "src/$n.txt" ok "a2ps, one page per sheet, no header, then ps2pdf"
	fi
done
# A PDF printed to PostScript and distilled again keeps its text only where
# the fonts carry glyph names (pdfTeX's Type 1 fonts): the CID and TrueType
# fonts of XeTeX and LibreOffice come out as codes no engine maps back to
# letters, so those are left out (every engine reads symbols there).
for n in en_apache de_maint cs_man pl_man ru_maint uk_man; do
	[ -f "$out/pdftex.$n.pdf" ] || continue
	pdftops "$out/pdftex.$n.pdf" "$work/$n.reprint.ps"
	ps2pdf "$work/$n.reprint.ps" "$out/gs-reprint.$n.pdf"
	row "gs-reprint.$n.pdf" ghostscript-reprint "$(script_of "$n")" "src/$n.txt" ok "the pdfTeX PDF printed to PostScript (pdftops) and distilled again (ps2pdf)"
done

# --- scans: pages as noisy, slightly rotated images; with and without OCR ----------
scan() { # PDF OUT PAGES SEED: a gray 200 dpi image-only PDF of the first PAGES pages
	local pdf=$1 dst=$2 pages=$3 seed=$4 i=0
	rm -f "$work"/scan-*.png "$work"/noisy-*.jpg
	pdftoppm -r 200 -gray -png -f 1 -l "$pages" "$pdf" "$work/scan"
	for p in "$work"/scan-*.png; do
		i=$((i + 1))
		/usr/bin/convert "$p" -seed $((seed + i)) -background white -rotate "0.$((seed % 7 + 2))" \
			-attenuate 0.4 +noise Gaussian -colorspace Gray -quality 60 "$work/noisy-$(printf %02d $i).jpg"
	done
	# JPEG, as most scanners save gray pages: noise makes PNG pages ten times larger
	img2pdf --output "$dst" "$work"/noisy-*.jpg
}
layer() { # PDF NAME: the OCR text layer as the true text (what a correct reader reads)
	pdftotext -enc UTF-8 "$1" "$out/src/$2.layer.txt"
}
for spec in en_apache:3:eng en_constitution:3:eng de_maint:2:deu ru_maint:2:rus en_short:1:eng; do
	IFS=: read -r n pages lang <<<"$spec"
	scan "$out/lo.$n.pdf" "$work/scan.$n.pdf" "$pages" 7
	ocrmypdf -q -l "$lang" --output-type pdf --optimize 0 "$work/scan.$n.pdf" "$out/ocr.$n.pdf" 2>/dev/null ||
		{ echo "make-pdf-corpus: ocrmypdf failed on $n" >&2; continue; }
	layer "$out/ocr.$n.pdf" "ocr.$n"
	row "ocr.$n.pdf" ocrmypdf "$(script_of "$n")" "src/ocr.$n.layer.txt" ok "first $pages pages of lo.$n.pdf at 200 dpi, rotated, noise (seeded), OCR by ocrmypdf ($lang); true text: the OCR layer as pdftotext reads it (the page's own text is src/$n.txt)"
done
for spec in en_short:1:eng en_gpl3:2:eng; do
	IFS=: read -r n pages lang <<<"$spec"
	scan "$out/pdftex.$n.pdf" "$work/tscan.$n.pdf" "$pages" 11
	pdfimages -j "$work/tscan.$n.pdf" "$work/timg"
	ls "$work"/timg-*.jpg >"$work/tlist.txt"
	tesseract "$work/tlist.txt" "$work/tess.$n" -l "$lang" pdf >/dev/null 2>&1
	cp "$work/tess.$n.pdf" "$out/tesseract.$n.pdf"
	rm -f "$work"/timg-*.jpg
	layer "$out/tesseract.$n.pdf" "tesseract.$n"
	row "tesseract.$n.pdf" tesseract "$(script_of "$n")" "src/tesseract.$n.layer.txt" ok "pdfTeX pages scanned (seeded noise, rotation), tesseract ... pdf (invisible text over the image); true text: its layer as pdftotext reads it"
	cp "$work/tscan.$n.pdf" "$out/scan.$n.pdf"
	row "scan.$n.pdf" img2pdf "$(script_of "$n")" - no_text_layer "image-only scan: $pages noisy gray pages, no text layer (the page text is src/$n.txt)"
done
for n in en_apache ru_maint; do
	cp "$work/scan.$n.pdf" "$out/scan.$n.pdf"
	row "scan.$n.pdf" img2pdf "$(script_of "$n")" - no_text_layer "image-only scan of lo.$n.pdf: no text layer"
done

# --- text drawn as vector outlines: no text layer, not empty -------------------------
# The first page only: a page of outlines weighs about 1 MB.
for spec in lo.en_short lo.en_apache pdftex.en_constitution xetex.ru_maint xetex.mk_man xetex.el_msgs xetex.ar_msgs xetex.ko_faq; do
	n=${spec#*.}
	[ -f "$out/$spec.pdf" ] || continue
	gs -q -dSAFER -dBATCH -dNOPAUSE -sDEVICE=pdfwrite -dNoOutputFonts -dFirstPage=1 -dLastPage=1 -sOutputFile="$out/outlines.$n.pdf" "$out/$spec.pdf"
	row "outlines.$n.pdf" ghostscript-outlines "$(script_of "$n")" - no_text_layer "gs -dNoOutputFonts of page 1 of $spec.pdf: every glyph a filled path, no font; must fail as no_text_layer, not empty"
done

# --- broken files that viewers repair ------------------------------------------------
for base in pdftex.tr_man pdftex.en_gpl3 lo.en_short lo.de_maint xetex.ru_maint; do
	[ -f "$out/$base.pdf" ] || continue
	n=${base#*.}
	want=$(words "$out/$base.pdf")
	# pdfTeX and xdvipdfmx keep objects in compressed object streams, which no
	# reader can find without the xref; the damage is done to a copy with a
	# classic xref table (as an older pdfTeX or a repairing tool writes it).
	in=$out/$base.pdf
	case $base in pdftex.* | xetex.*)
		in=$work/classic.$base.pdf
		qpdf --object-streams=disable "$out/$base.pdf" "$in" ;;
	esac
	for how in truncated cut92 shifted noxref badstartxref; do
		f="broken-$how.$base.pdf"
		$py broken "$in" "$out/$f" "$how" 2>/dev/null || { rm -f "$out/$f"; continue; }
		got=$(words "$out/$f")
		expect=ok
		[ "$got" -ge $((want / 2)) ] || expect=corrupt
		row "$f" "broken-$how" "$(script_of "$n")" "src/$n.txt" "$expect" "$how copy of $base.pdf; pdftotext or mutool reads $got of $want words$([ $how = cut92 ] && echo '; the last 8% of the file is missing')"
	done
done

# --- qpdf: object streams, linearized, encryption ------------------------------------
for base in pdftex.tr_man lo.en_short xetex.mk_man lo.ar_msgs xetex.zhtw_ref; do
	[ -f "$out/$base.pdf" ] || continue
	n=${base#*.}
	s=$(script_of "$n")
	qpdf --object-streams=generate "$out/$base.pdf" "$out/qpdf-objstm.$base.pdf"
	row "qpdf-objstm.$base.pdf" qpdf "$s" "src/$n.txt" ok "qpdf --object-streams=generate: objects and xref in compressed streams"
	qpdf --linearize "$out/$base.pdf" "$out/qpdf-linear.$base.pdf"
	row "qpdf-linear.$base.pdf" qpdf "$s" "src/$n.txt" ok "qpdf --linearize (fast web view)"
	qpdf --encrypt "" owner 256 -- "$out/$base.pdf" "$out/qpdf-owner.$base.pdf"
	row "qpdf-owner.$base.pdf" qpdf "$s" "src/$n.txt" ok "qpdf AES-256 with an owner password only: opens without asking, must read"
	qpdf --allow-weak-crypto --encrypt "" owner 40 -- "$out/$base.pdf" "$out/qpdf-rc4.$base.pdf"
	row "qpdf-rc4.$base.pdf" qpdf "$s" "src/$n.txt" ok "qpdf RC4 40-bit, empty user password (old Acrobat 3 encryption): must read"
	qpdf --encrypt user owner 128 --use-aes=y -- "$out/$base.pdf" "$out/qpdf-user.$base.pdf"
	row "qpdf-user.$base.pdf" qpdf "$s" "src/$n.txt" encrypted "qpdf AES-128 with a user password: needs the password"
done

# --- README: what each text is and under which licence ---------------------------------
{
	echo "# Real-world PDF corpus"
	echo
	echo "Made by \`scripts/make-pdf-corpus.sh\` of the plagd repository with Debian's tools"
	echo "(LibreOffice, TeX Live, Ghostscript, groff, enscript, a2ps, qpdf, ImageMagick,"
	echo "img2pdf, tesseract, ocrmypdf); every PDF here was produced by that script, none"
	echo "was fetched. \`manifest.tsv\` lists each file's producer, script, true text and"
	echo "expected outcome. Measure with \`plagd-lab extract-eval --corpus DIR\`."
	echo
	echo "## Source texts and their licences"
	echo
	echo "| text | script | language | Debian package | licence |"
	echo "| --- | --- | --- | --- | --- |"
	awk -F'\t' 'NR > 1 {printf "| src/%s.txt | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5}' "$out/src/SOURCES.tsv"
	echo
	echo "Each Debian package's full licence is in /usr/share/doc/PACKAGE/copyright."
	echo "src/blank.txt, src/tiny.txt and src/short.txt were written for this corpus"
	echo "(public domain). src/*.layer.txt are the OCR text layers of the scanned"
	echo "files as pdftotext reads them (derived from the texts above)."
} >"$out/README.md"

echo "corpus in $out: $(($(wc -l <"$manifest") - 1)) files, $(du -sh "$out" | cut -f1)"

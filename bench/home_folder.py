"""A generated folder that looks like a person's home folder, for bench/first_index.py.

    python bench/home_folder.py OUT_FOLDER [--chunks 100000] [--seed 3]

Mixed formats and sizes, as people keep them: notes (Markdown, text) in English and Japanese, code, web pages,
PDFs of 1-12 pages, Word documents, spreadsheets, slide decks, e-mails (some with attachments), RTF letters and zip
archives, in nested folders (Documents/Projects/…, Mail, Downloads, code). Sizes follow a long tail: most files
are short, a few are long. About 12 chunks per file on average (the default 190-word-piece chunks), so
~100,000 chunks is ~8,500 files. The words are drawn from a Zipf-distributed vocabulary of real English and
Japanese words (not noise), so keyword postings and chunk lengths look like real text. Deterministic for a seed;
a folder already written for the same arguments is reused (its manifest says which).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from documents import write_docx, write_pdf  # noqa: E402
from office_documents import message, write_pptx, write_rtf, write_xlsx, write_zip  # noqa: E402

ENGLISH = ("budget invoice quarterly revenue forecast hiring meeting project deadline report customer supplier "
           "contract delivery warehouse shipping pricing discount margin payroll holiday travel hotel flight "
           "garden kitchen recipe flour butter oven bread soup school homework teacher exam lecture chapter "
           "theorem proof variable function server database backup network password printer laptop battery "
           "insurance mortgage pension doctor appointment vaccine pharmacy bicycle train ticket museum concert "
           "violin piano novel poem river mountain glacier harbour lighthouse ferry heron kestrel orchard meadow "
           "tax receipt ledger audit policy review schedule agenda minutes decision risk quality release").split()
FILLER = ("the of and to in a is that for it as with was on be by this are from or at which an not have has "
          "but all were when we there can been one will more if no out so what up about into than them only "
          "other new some could time these two may then first any like now such our over also back after").split()
JAPANESE = ("会議 予算 売上 見積もり 請求書 契約 納期 出荷 倉庫 在庫 顧客 取引先 担当者 報告書 議事録 資料 "
            "旅行 出張 ホテル 新幹線 領収書 経費 申請 承認 休暇 研修 講義 試験 宿題 先生 学生 料理 レシピ "
            "小麦粉 バター 野菜 病院 予約 薬局 保険 年金 税金 銀行 口座 電車 切符 美術館 音楽会 小説 川 山 "
            "港 灯台 庭 果樹園 鳥 サーバー データベース バックアップ ネットワーク パスワード 印刷 電池").split()
PARTICLES = "は が を に で と の から まで も".split()
ENDINGS = ("です。", "でした。", "する予定です。", "を確認しました。", "について話し合った。", "が必要である。")
NAMES = ["Anna Berg", "Kenji Sato", "Maria Lopez", "Tom Reed", "Yuki Tanaka", "Priya Shah"]

# (family, share of files, how many paragraphs: (shortest, longest))
MIX = [("note_en", 0.30, (3, 80)), ("note_ja", 0.10, (3, 60)), ("code", 0.12, (4, 60)), ("html", 0.08, (3, 50)),
       ("pdf", 0.10, (6, 120)), ("docx", 0.09, (4, 80)), ("xlsx", 0.06, (1, 8)), ("pptx", 0.04, (4, 30)),
       ("eml", 0.06, (1, 8)), ("rtf", 0.02, (3, 20)), ("zip", 0.03, (3, 10))]
PLACES = {"note_en": "Documents/Notes", "note_ja": "Documents/メモ", "code": "code", "html": "Downloads/pages",
          "pdf": "Documents/Reports", "docx": "Documents/Projects", "xlsx": "Documents/Finance",
          "pptx": "Documents/Talks", "eml": "Mail", "rtf": "Documents/Letters", "zip": "Downloads"}
CHUNKS_PER_FILE = 11.8  # measured at the default chunk size over a generated folder; used to size it


class Writer:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self._english = ENGLISH + FILLER
        self._weights = [1 / (rank + 1) ** 0.9 for rank in range(len(self._english))]
        self.rng.shuffle(self._english)

    def sentence(self, words: int = 16) -> str:
        return " ".join(self.rng.choices(self._english, self._weights, k=words)).capitalize() + "."

    def paragraph(self, sentences: int = 6) -> str:
        return " ".join(self.sentence(self.rng.randint(8, 20)) for _ in range(sentences))

    def japanese(self, sentences: int = 6) -> str:
        return "".join(self.rng.choice(JAPANESE) + self.rng.choice(PARTICLES) + self.rng.choice(JAPANESE)
                       + self.rng.choice(PARTICLES) + self.rng.choice(JAPANESE) + self.rng.choice(ENDINGS)
                       for _ in range(sentences * 3))

    def length(self, shortest: int, longest: int) -> int:
        """A long tail: most files short, a few long."""
        return min(longest, shortest + int(3 * self.rng.paretovariate(1.3)) - 3 + self.rng.randint(0, shortest))

    def write(self, family: str, path: Path, paragraphs: int) -> None:
        rng = self.rng
        title = self.sentence(4).rstrip(".")
        if family == "note_en":
            path.write_text(f"# {title}\n\n" + "\n\n".join(
                (f"## {self.sentence(3).rstrip('.')}\n\n" if i % 4 == 0 else "") + self.paragraph()
                for i in range(paragraphs)), encoding="utf-8")
        elif family == "note_ja":
            path.write_text(f"# {rng.choice(JAPANESE)}{rng.choice(JAPANESE)}メモ\n\n"
                            + "\n\n".join(self.japanese() for _ in range(paragraphs)), encoding="utf-8")
        elif family == "code":
            functions = [f"def {rng.choice(ENGLISH)}_{rng.choice(ENGLISH)}_{i}(value, limit=10):\n"
                         f'    """{self.sentence(12)}"""\n'
                         + "".join(f"    {rng.choice(ENGLISH)} = value * {rng.randint(2, 99)}  # "
                                   f"{self.sentence(6)}\n" for _ in range(8))
                         + "    return value\n" for i in range(paragraphs)]
            path.write_text(f'"""{title}."""\n\n' + "\n\n".join(functions), encoding="utf-8")
        elif family == "html":
            body = "".join(f"<h2>{self.sentence(3)}</h2><p>{self.paragraph()}</p>" for _ in range(paragraphs))
            path.write_text(f"<html><head><title>{title}</title></head><body><h1>{title}</h1>{body}</body></html>",
                            encoding="utf-8")
        elif family == "pdf":
            write_pdf(path, [f"{title}\n\n" + "\n\n".join(self.paragraph() for _ in range(3))
                             for _ in range(max(1, paragraphs // 3))])
        elif family == "docx":
            write_docx(path, [block for _ in range(paragraphs) for block in
                              (("h1", self.sentence(3)), ("p", self.paragraph()))], title=title)
        elif family == "xlsx":
            write_xlsx(path, {f"Sheet{s}": [["Date", "Item", "Amount", "Note"]] + [
                [f"2025-{1 + r % 12:02d}-{1 + r % 28:02d}", rng.choice(ENGLISH), rng.randint(1, 9000),
                 self.sentence(6)] for r in range(40)] for s in range(paragraphs)})
        elif family == "pptx":
            write_pptx(path, [(self.sentence(4), self.paragraph(3), self.sentence()) for _ in range(paragraphs)],
                       title=title)
        elif family == "eml":
            attachments = [("notes.txt", self.paragraph(4).encode())] if rng.random() < 0.2 else []
            path.write_bytes(message(title, "\n\n".join(self.paragraph() for _ in range(paragraphs)),
                                     sender=f"{rng.choice(NAMES)} <someone@example.org>",
                                     date=f"Mon, {1 + rng.randint(0, 27)} Sep 2025 10:00:00 +0000",
                                     attachments=attachments))
        elif family == "rtf":
            write_rtf(path, [self.paragraph() for _ in range(paragraphs)], title=title)
        elif family == "zip":
            write_zip(path, {f"docs/part{m}.md": f"# {self.sentence(3)}\n\n{self.paragraph()}".encode()
                             for m in range(paragraphs)})


SUFFIXES = {"note_en": ".md", "note_ja": ".txt", "code": ".py", "html": ".html", "pdf": ".pdf", "docx": ".docx",
            "xlsx": ".xlsx", "pptx": ".pptx", "eml": ".eml", "rtf": ".rtf", "zip": ".zip"}


def write_home_folder(folder: Path, chunks: int, seed: int = 3) -> dict:
    """Write (or reuse) the folder; returns its manifest: files per family, and the marker word of the file
    written last (a word no other file has, for a search that tells when every file is keyword-searchable)."""
    manifest_file = folder / ".manifest.json"
    wanted = {"chunks": chunks, "seed": seed, "version": 2}
    if manifest_file.exists():
        manifest = json.loads(manifest_file.read_text())
        if manifest["wanted"] == wanted:
            return manifest
    files = max(len(MIX), round(chunks / CHUNKS_PER_FILE))
    writer = Writer(seed)
    counts = {}
    for family, share, (shortest, longest) in MIX:
        n = max(1, round(files * share))
        counts[family] = n
        for i in range(n):
            sub = folder / PLACES[family] / f"{i // 200:03d}"  # folders of ~200 files, as people have
            sub.mkdir(parents=True, exist_ok=True)
            writer.write(family, sub / f"{family}-{i:05d}{SUFFIXES[family]}", writer.length(shortest, longest))
    (folder / "zz-last").mkdir(exist_ok=True)
    marker = "quillwortmarker"  # a word only this file has: "zz-last" is read after every other folder
    (folder / "zz-last" / "last.md").write_text(f"# Last\n\nThe {marker} file.\n", encoding="utf-8")
    manifest = {"wanted": wanted, "files": counts, "marker": marker}
    manifest_file.write_text(json.dumps(manifest), encoding="utf-8")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(write_home_folder(args.out, args.chunks, args.seed)))


if __name__ == "__main__":
    main()

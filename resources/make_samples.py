"""Regenerate the binary sample documents (PDF, DOCX) from text, so their content is reviewable here.

Run: python resources/make_samples.py
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent / "samples"

HANDBOOK_PAGES = [
    ("Bicycle Maintenance Handbook", "Keep your bicycle safe and quiet with a few minutes of care each week. "
     "This handbook covers tyres, chains and brakes."),
    ("Tyres", "Check tyre pressure every week. Road tyres want 6 to 8 bar, hybrid tyres 4 to 5 bar. "
     "A slow puncture often comes from a thorn still stuck in the tyre: find it before fitting a new tube."),
    ("Chain", "Clean and lubricate the chain every 300 kilometres or after riding in rain. Replace it when a "
     "chain checker shows 0.5 percent wear, or it will wear out the cassette too."),
    ("Brakes", "Rim brake pads are worn when the grooves disappear. Disc brakes squeal when the pads are "
     "contaminated with oil; clean the rotor with isopropyl alcohol."),
]


def make_pdf(path: Path) -> None:
    import pymupdf

    doc = pymupdf.open()
    toc = []
    for number, (heading, body) in enumerate(HANDBOOK_PAGES, start=1):
        page = doc.new_page()
        page.insert_text((72, 80), heading, fontsize=18)
        page.insert_textbox(pymupdf.Rect(72, 110, 520, 700), body, fontsize=11)
        toc.append([1 if number == 1 else 2, heading, number])
    doc.set_toc(toc)
    doc.set_metadata({"title": "Bicycle Maintenance Handbook"})
    doc.save(path)


def make_docx(path: Path) -> None:
    import docx

    document = docx.Document()
    document.core_properties.title = "Onboarding Checklist"
    document.add_heading("Onboarding Checklist", level=1)
    document.add_paragraph("Everything a new team member needs in the first week.")
    document.add_heading("Accounts", level=2)
    document.add_paragraph("Ask IT for a laptop, an email account and access to the VPN on the first day.")
    document.add_heading("People", level=2)
    document.add_paragraph("Book a coffee with your buddy and a one-to-one with your manager in week one.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Tool", "Owner"
    table.cell(1, 0).text, table.cell(1, 1).text = "Payroll portal", "HR"
    document.save(path)


if __name__ == "__main__":
    make_pdf(HERE / "bicycle-handbook.pdf")
    make_docx(HERE / "onboarding-checklist.docx")

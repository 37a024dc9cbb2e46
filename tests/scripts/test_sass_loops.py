"""scripts/bench/sass_loops.py on small listings written here (no SASS is committed): the loops of a .sass and their
instruction counts, and the live registers of a .plr (nvdisasm -plr) at an instruction."""
from helpers import run_script


def sass(tmp_path):
    body = ["        /*0000*/ MOV R1, c[0x0][0x28] ;"]
    body += ["    .L_x_7:"]
    body += ["        HGMMA.64x128x16.F32 R24, gdesc[UR4], R24 ;"] * 8
    body += ["        MUFU.EX2 R3, R3 ;"] * 32
    body += ["        FFMA R4, R5, R6, R4 ;"] * 12
    body += ["        STL [R1], R4 ;", "        LDL R4, [R1] ;", "        R2UR UR4, R2 ;"]
    body += ["   @P0  BRA `(.L_x_7) ;"]
    body += ["    .L_x_8:"] + ["        FADD R7, R7, R8 ;"] * 10 + ["   @P1  BRA `(.L_x_8) ;"]  # too short to list
    body += ["        EXIT ;"]
    path = tmp_path / "k.sass"
    path.write_text("\n".join(body) + "\n")
    return path


def test_loops_lists_the_long_loop_with_its_counts(tmp_path):
    p = run_script("bench/sass_loops.py", "loops", sass(tmp_path))
    assert p.returncode == 0, p.stderr
    assert p.stdout == "lines 1-57: 56 instructions, HGMMA 8, MUFU 32, STL 1, LDL 1, R2UR 1\n"


def plr(tmp_path):
    """A header of GPR columns and two instructions whose live registers are marked under their numbers."""
    header = "                                   // | # 0 1 2 3 24 25 200 | UR |"
    columns = {r: header.index(f" {r} ", header.index("#")) + len(str(r)) for r in (0, 1, 2, 3, 24, 25, 200)}

    def row(text, live):
        line = list(f"        {text:<26} // |" + " " * (len(header) - 37))
        for r in live:
            line[columns[r]] = ":"
        return "".join(line)
    lines = [header, row("MOV R0, R1 ;", [0, 1]), row("FFMA R2, R0, R24, R200 ;", [0, 2, 24, 200])]
    path = tmp_path / "k.plr"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_live_counts_the_registers_and_names_those_outside_r24_r183(tmp_path):
    p = run_script("bench/sass_loops.py", "live", plr(tmp_path), "FFMA")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "FFMA R2, R0, R24, R200 ;\n4 live: R0 R2 R200\n"


def test_live_names_a_missing_instruction(tmp_path):
    p = run_script("bench/sass_loops.py", "live", plr(tmp_path), "FFMA", "2")
    assert p.returncode != 0 and "1 instruction(s) contain 'FFMA'" in p.stderr

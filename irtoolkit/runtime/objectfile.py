"""Reading the ELF relocatable objects the JIT loads, after checking them.

LLVM's RuntimeDyld trusts the object it is given: random bytes, a truncated
file or another CPU's object abort or crash the process. Every object passes
``read_object`` before it reaches LLVM, whether it was just compiled or comes
from the disk cache: the header must describe a relocatable ELF64 object for
this host's byte order and CPU, the section header table and every section,
symbol and relocation must lie within the file, and the sizes must agree.
What it returns -- the names of the undefined and of the defined global
symbols -- is what the symbol allow-list (``symbols.py``) checks.
"""

from __future__ import annotations

import platform
import struct
import sys
from collections.abc import Iterable
from dataclasses import dataclass

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_SYM = struct.Struct("<IBBHQQ")
_RELA = struct.Struct("<QQq")
_REL = struct.Struct("<QQ")

ET_REL = 1
SHT_NULL, SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_NOBITS, SHT_REL = 0, 2, 3, 4, 8, 9
SHN_UNDEF, SHN_LORESERVE, SHN_ABS, SHN_COMMON, SHN_XINDEX = 0, 0xFF00, 0xFFF1, 0xFFF2, 0xFFFF
STT_TLS, STT_GNU_IFUNC = 6, 10

# e_machine of the CPUs LLVM's JIT runs on (platform.machine() names)
_MACHINES = {"x86_64": 62, "amd64": 62, "aarch64": 183, "arm64": 183, "ppc64le": 21,
             "ppc64": 21, "s390x": 22, "riscv64": 243, "loongarch64": 258}


class InvalidObject(ValueError):
    """Bytes that are not a relocatable object this process can load."""


@dataclass(frozen=True)
class ObjectSymbols:
    undefined: tuple[str, ...]  # what the object needs from outside
    defined: tuple[str, ...]  # the global (and weak) symbols it defines


def external_symbols(contents: Iterable[ObjectSymbols]) -> set[str]:
    """What objects linked together need from outside: their undefined symbols
    that none of them defines (codegen groups call each other's functions)."""
    contents = list(contents)
    defined = {name for c in contents for name in c.defined}
    return {name for c in contents for name in c.undefined} - defined


def host_machine() -> int | None:
    """The ELF e_machine of this host (None: a CPU not in the table)."""
    return _MACHINES.get(platform.machine().lower())


def read_object(obj: bytes, machine: int | None = None) -> ObjectSymbols:
    """Check ``obj`` (see the module doc) and return its symbols; ``InvalidObject`` says why not.

    ``machine``: the e_machine required, default this host's."""
    n = len(obj)
    if n < _EHDR.size:
        raise InvalidObject(f"{n} bytes: too short for an ELF header")
    (ident, e_type, e_machine, e_version, _entry, _phoff, shoff, _flags, ehsize, _phentsize,
     phnum, shentsize, shnum, shstrndx) = _EHDR.unpack_from(obj, 0)
    if ident[:4] != b"\x7fELF":
        raise InvalidObject("not an ELF file")
    if ident[4] != 2:
        raise InvalidObject("not a 64-bit ELF object")
    if ident[5] != (1 if sys.byteorder == "little" else 2) or sys.byteorder != "little":
        # (the structures are read little-endian: big-endian hosts are refused too)
        raise InvalidObject("ELF object of another byte order")
    if ident[6] != 1 or e_version != 1:
        raise InvalidObject("unknown ELF version")
    if e_type != ET_REL:
        raise InvalidObject(f"ELF type {e_type}, not a relocatable object")
    want = host_machine() if machine is None else machine
    if want is not None and e_machine != want:
        raise InvalidObject(f"ELF object for machine {e_machine}, this host is {want}")
    if ehsize != _EHDR.size or phnum != 0:
        raise InvalidObject("malformed ELF header")
    if shentsize != _SHDR.size or not 0 < shnum < SHN_LORESERVE:
        raise InvalidObject("malformed section header table")
    if shoff < _EHDR.size or shoff + shnum * _SHDR.size > n:
        raise InvalidObject("section header table outside the file")
    if shstrndx >= shnum:
        raise InvalidObject("section name table index out of range")
    sections = [_SHDR.unpack_from(obj, shoff + i * _SHDR.size) for i in range(shnum)]
    for i, (_name, kind, _fl, _addr, offset, size, link, _info, align, _ent) in enumerate(sections):
        if kind not in (SHT_NULL, SHT_NOBITS) and offset + size > n:
            raise InvalidObject(f"section {i} extends past the end of the file")
        if link >= shnum or (align & (align - 1)):
            raise InvalidObject(f"malformed section header {i}")
    if sections[shstrndx][1] != SHT_STRTAB:
        raise InvalidObject("section name table is not a string table")

    symtabs = [i for i, s in enumerate(sections) if s[1] == SHT_SYMTAB]
    if len(symtabs) > 1:
        raise InvalidObject("more than one symbol table")
    undefined: list[str] = []
    defined: list[str] = []
    nsyms = 0
    if symtabs:
        _name, _k, _fl, _addr, offset, size, link, first_global, _al, entsize = sections[symtabs[0]]
        if entsize != _SYM.size or size % _SYM.size:
            raise InvalidObject("malformed symbol table")
        nsyms = size // _SYM.size
        if first_global > nsyms:
            raise InvalidObject("malformed symbol table")
        strtab = sections[link]
        if strtab[1] != SHT_STRTAB:
            raise InvalidObject("symbol names are not in a string table")
        str_off, str_size = strtab[4], strtab[5]
        for k, (st_name, st_info, _other, st_shndx, _value, _size) in enumerate(
                _SYM.iter_unpack(obj[offset: offset + size])):
            if k == 0:
                continue
            if st_shndx >= shnum and st_shndx not in (SHN_ABS, SHN_COMMON):
                raise InvalidObject(f"symbol {k} refers to section {st_shndx}")
            if st_info & 0xF in (STT_TLS, STT_GNU_IFUNC):
                raise InvalidObject(f"symbol {k} is of a kind the JIT does not load")
            if st_name >= str_size:
                raise InvalidObject(f"symbol {k}'s name is outside the string table")
            if not st_name:
                continue
            end = obj.find(b"\0", str_off + st_name, str_off + str_size)
            if end < 0:
                raise InvalidObject(f"symbol {k}'s name is not terminated")
            raw = obj[str_off + st_name: end]
            try:
                name = raw.decode("ascii")
            except UnicodeDecodeError:
                raise InvalidObject(f"symbol {k}'s name is not ASCII") from None
            if st_shndx == SHN_UNDEF:
                undefined.append(name)
            elif st_info >> 4 != 0:  # STB_GLOBAL or STB_WEAK
                defined.append(name)

    for i, (_name, kind, _fl, _addr, offset, size, link, target, _al, entsize) in enumerate(sections):
        if kind not in (SHT_RELA, SHT_REL):
            continue
        rec = _RELA if kind == SHT_RELA else _REL
        if entsize != rec.size or size % rec.size:
            raise InvalidObject(f"malformed relocation section {i}")
        if not symtabs or link != symtabs[0] or not 0 < target < shnum:
            raise InvalidObject(f"relocation section {i} refers to the wrong sections")
        limit = sections[target][5]
        for r in rec.iter_unpack(obj[offset: offset + size]):
            if r[1] >> 32 >= nsyms or r[0] >= limit:
                raise InvalidObject(f"relocation out of range in section {i}")
    return ObjectSymbols(tuple(undefined), tuple(defined))

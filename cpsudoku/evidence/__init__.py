"""Evidence a third party can check: proof certificates, witness pairs, true candidates.

- :func:`certify` writes a unique puzzle's certificate (solution, CNF, DRUP proof,
  manifest with SHA-256 hashes) and checks the proof in process with an independent
  checker (``dratify``);
- :func:`check_certificate` re-derives the CNF with a separate textbook encoder
  (:mod:`cpsudoku.evidence.plain`), checks the hashes, the solution with the verifier
  and the proof with the checker;
- :func:`true_candidates` lists, for each cell, the values that occur in at least one
  solution, by incremental SAT under assumptions;
- :func:`provenance` says how an output was made (versions, machine, input, times).
"""

from cpsudoku.evidence.candidates import TrueCandidates, true_candidates
from cpsudoku.evidence.certificate import (
    Certificate,
    CertificateError,
    certify,
    make_certificate,
    write_certificate,
)
from cpsudoku.evidence.check import CheckReport, check_certificate
from cpsudoku.evidence.provenance import provenance

__all__ = [
    "Certificate",
    "CertificateError",
    "CheckReport",
    "TrueCandidates",
    "certify",
    "check_certificate",
    "make_certificate",
    "provenance",
    "true_candidates",
    "write_certificate",
]

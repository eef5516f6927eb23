package loader

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/ilgraph/ilgraph"
)

// A load reads every case file twice — once to validate, once to write —
// so that a large load is never held in memory. A file that changes between
// the two reads must not load the changed bytes, which nobody validated. The
// validation pass therefore records each file's fingerprint: its size and
// the SHA-256 of each block. Before anything is written every file is read
// again and compared, and the write pass reads through a verifyingReader that
// hands the parser a block only once its hash matches: a change is an error
// naming the file, and no unvalidated byte is ever written.

// fingerprintBlock is the size of a fingerprinted block: the write pass holds
// one block per file it reads, and a fingerprint holds one hash per block.
var fingerprintBlock = 1 << 20

// fingerprint is what the validation pass read of a file.
type fingerprint struct {
	size   int64
	blocks [][sha256.Size]byte // the SHA-256 of each block of fingerprintBlock bytes, the last one shorter
}

// fingerprinter computes the fingerprint of the bytes written to it.
type fingerprinter struct {
	fp fingerprint
	h  hash.Hash
	n  int // bytes of the current block hashed so far
}

func newFingerprinter() *fingerprinter { return &fingerprinter{h: sha256.New()} }

func (w *fingerprinter) Write(p []byte) (int, error) {
	size := len(p)
	for len(p) > 0 {
		k := min(len(p), fingerprintBlock-w.n)
		w.h.Write(p[:k])
		w.n += k
		w.fp.size += int64(k)
		p = p[k:]
		if w.n == fingerprintBlock {
			w.endBlock()
		}
	}
	return size, nil
}

func (w *fingerprinter) endBlock() {
	var sum [sha256.Size]byte
	w.h.Sum(sum[:0])
	w.fp.blocks = append(w.fp.blocks, sum)
	w.h.Reset()
	w.n = 0
}

// sum returns the fingerprint of everything written.
func (w *fingerprinter) sum() fingerprint {
	if w.n > 0 || len(w.fp.blocks) == 0 {
		w.endBlock()
	}
	return w.fp
}

// errChanged reports a file that is not what the validation pass read.
func errChanged(path string) error {
	return ilgraph.Errorf(ilgraph.ECONFLICT, "%s changed since it was validated: load it again once it is no longer being written", path)
}

// verifyingReader reads a file block by block and returns a block's bytes only
// once they match the fingerprint; a mismatch (or a read error) is its error
// from then on, kept in err so that it is never lost inside a parse problem.
type verifyingReader struct {
	path  string
	r     io.Reader
	fp    fingerprint
	block int   // index of the next block to check
	read  int64 // bytes checked so far
	buf   []byte
	avail []byte // checked bytes not yet returned
	err   error
}

func newVerifyingReader(path string, r io.Reader, fp fingerprint) *verifyingReader {
	return &verifyingReader{path: path, r: r, fp: fp, buf: make([]byte, fingerprintBlock)}
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	if len(v.avail) == 0 {
		if v.err != nil {
			return 0, v.err
		}
		v.next()
		if len(v.avail) == 0 {
			return 0, v.err
		}
	}
	n := copy(p, v.avail)
	v.avail = v.avail[n:]
	return n, nil
}

// next reads and checks the next block; at the end of the file it checks
// that nothing is missing and sets err to io.EOF.
func (v *verifyingReader) next() {
	n, err := io.ReadFull(v.r, v.buf)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		// The end of the file: what was read must be the last block.
	case err != nil:
		v.err = ilgraph.WrapError(ilgraph.EINTERNAL, err, "%s: cannot read", v.path)
		return
	}
	if n == 0 {
		if v.read != v.fp.size {
			v.err = errChanged(v.path)
		} else {
			v.err = io.EOF
		}
		return
	}
	if v.block >= len(v.fp.blocks) || sha256.Sum256(v.buf[:n]) != v.fp.blocks[v.block] {
		v.err = errChanged(v.path)
		return
	}
	v.block++
	v.read += int64(n)
	v.avail = v.buf[:n]
}

// drain reads and checks the rest of the file, for a parse that stopped
// before its end; it returns the first error other than io.EOF.
func (v *verifyingReader) drain() error {
	for v.err == nil {
		v.avail = nil
		v.next()
	}
	if v.err == io.EOF {
		return nil
	}
	return v.err
}

// verifyFile reads the whole file at path and checks it against fp.
func verifyFile(path string, fp fingerprint) error {
	f, err := os.Open(path)
	if err != nil {
		return ilgraph.WrapError(ilgraph.ECONFLICT, err, "%s changed since it was validated: cannot read it again", path)
	}
	defer f.Close()
	return newVerifyingReader(path, f, fp).drain()
}

// parseFingerprinted is ParseFile for the validation pass: it also returns
// the file's fingerprint, of the whole file even when a syntax error ends
// the parse.
func parseFingerprinted(path string, fn func(Parsed) error) (Problems, fingerprint) {
	f, err := os.Open(path)
	if err != nil {
		return Problems{{Pos: Position{File: path, Index: -1}, Msg: fmt.Sprintf("cannot read: %v", err)}}, fingerprint{}
	}
	defer f.Close()
	fpr := newFingerprinter()
	r := io.TeeReader(f, fpr)
	probs := Parse(path, r, fn)
	if _, err := io.Copy(io.Discard, r); err != nil {
		probs = append(probs, &Problem{Pos: Position{File: path, Index: -1}, Msg: fmt.Sprintf("cannot read: %v", err)})
	}
	return probs, fpr.sum()
}

// parseVerified is ParseFile for the write pass: the parser sees only bytes
// that match fp. It returns the parse's problems, or the error of a file that
// changed or could not be read (which the caller must not mistake for the
// problems the validation pass already reported).
func parseVerified(path string, fp fingerprint, fn func(Parsed) error) (Problems, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ilgraph.WrapError(ilgraph.ECONFLICT, err, "%s changed since it was validated: cannot read it again", path)
	}
	defer f.Close()
	vr := newVerifyingReader(path, f, fp)
	probs := Parse(path, vr, fn)
	if err := vr.drain(); err != nil {
		return nil, err
	}
	return probs, nil
}

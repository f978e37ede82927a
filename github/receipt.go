package github

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"time"

	"github.com/architect-dev/architect/runlog"
)

// Receipt is what a run verified, on which commits: written beside the
// run's records (runlog.ReceiptFile), uploaded with the report and carried
// in the pull request's body, where a later run reads it back.
type Receipt struct {
	Format     int            `json:"receipt"` // 1
	Architect  string         `json:"architect"`
	Repository string         `json:"repository,omitempty"`
	Branch     string         `json:"branch,omitempty"`
	Base       string         `json:"base"`        // the commit the run started from
	Head       string         `json:"head"`        // the commit its work ends on
	DiffSHA256 string         `json:"diff_sha256"` // of `git diff --binary BASE HEAD`
	Success    bool           `json:"success"`
	StopReason string         `json:"stop_reason"`
	Iterations int            `json:"iterations"`
	Checks     []ReceiptCheck `json:"checks"` // the last iteration's
	Cost       ReceiptCost    `json:"cost"`
	Issue      *ReceiptIssue  `json:"issue,omitempty"`
	RunURL     string         `json:"run_url,omitempty"`
	Written    string         `json:"written_at"`
}

// ReceiptCheck is one check of the last iteration.
type ReceiptCheck struct {
	Command  string  `json:"command"`
	Exit     int     `json:"exit_status"` // -1 when killed or never started
	Passed   bool    `json:"passed"`
	TimedOut bool    `json:"timed_out,omitempty"`
	Duration float64 `json:"duration_seconds"`
}

// ReceiptCost is what the run cost and how that is known.
type ReceiptCost struct {
	USD *float64 `json:"usd"` // null unless every iteration's cost is known
	// Provenance is reported (every iteration's agent reported its cost),
	// estimated (architect priced its tokens) or unknown (some iteration's
	// cost could not be known; KnownUSD is the part known).
	Provenance string  `json:"provenance"`
	KnownUSD   float64 `json:"known_usd"`
}

// The provenances of a cost.
const (
	CostReported  = "reported"
	CostEstimated = "estimated"
	CostUnknown   = "unknown"
)

// ReceiptIssue is the issue a run worked on, as it was when it started.
type ReceiptIssue struct {
	Number    int    `json:"number"`
	UpdatedAt string `json:"updated_at"`
	// TextSHA256 is the hash of its title and body: what tells a later
	// run whether the issue changed (updated_at moves with every comment,
	// architect's own included).
	TextSHA256 string `json:"text_sha256"`
}

// IssueReceipt is the receipt's part for issue is.
func IssueReceipt(is Issue) *ReceiptIssue {
	return &ReceiptIssue{Number: is.Number, UpdatedAt: is.UpdatedAt.UTC().Format(time.RFC3339), TextSHA256: TextHash(is)}
}

// TextHash is the sha256 of an issue's title and body.
func TextHash(is Issue) string {
	h := sha256.Sum256([]byte(is.Title + "\x00" + is.Body))
	return hex.EncodeToString(h[:])
}

// NewReceipt builds the receipt of res.
func NewReceipt(res *runlog.Result, version, base, head, diffSHA string, now time.Time) Receipt {
	rc := Receipt{Format: 1, Architect: version, Branch: res.Branch, Base: base, Head: head, DiffSHA256: diffSHA,
		Success: res.Success, StopReason: res.StopReason, Iterations: res.TotalIterations, Checks: []ReceiptCheck{},
		Written: now.UTC().Format(time.RFC3339)}
	if n := len(res.Iterations); n > 0 {
		for _, c := range res.Iterations[n-1].CheckResults {
			rc.Checks = append(rc.Checks, ReceiptCheck{Command: c.Name, Exit: c.ExitCode, Passed: c.Passed, TimedOut: c.TimedOut, Duration: c.Duration})
		}
	}
	rc.Cost = CostOf(res)
	return rc
}

// CostOf is res's cost and its provenance.
func CostOf(res *runlog.Result) ReceiptCost {
	c := ReceiptCost{KnownUSD: res.KnownCost, Provenance: CostUnknown}
	if res.TotalCostKnown && res.TotalCost != nil {
		v := *res.TotalCost
		c.USD, c.Provenance = &v, CostReported
	}
	return c
}

// receiptMarker opens the hidden comment that carries the receipt in a
// pull request's body. encoding/json writes '<' and '>' as \u003c and
// \u003e, so the JSON can never close the comment early.
const receiptMarker = "<!-- architect-receipt\n"

var receiptRE = regexp.MustCompile(`(?s)<!-- architect-receipt\n(.*?)\n-->`)

// Hidden is the receipt as a hidden HTML comment, for a pull request's body.
func (rc Receipt) Hidden() string {
	data, _ := json.Marshal(rc)
	return receiptMarker + string(data) + "\n-->"
}

// Indented is the receipt as indented JSON (receipt.json, the body's
// visible block).
func (rc Receipt) Indented() []byte {
	data, _ := json.MarshalIndent(rc, "", "  ")
	return append(data, '\n')
}

// ReadReceipt reads back the receipt a pull request's body carries; nil
// when it carries none (a pull request architect did not write, or edited
// past recognition).
func ReadReceipt(body string) *Receipt {
	m := receiptRE.FindStringSubmatch(body)
	if m == nil {
		return nil
	}
	var rc Receipt
	if json.Unmarshal([]byte(m[1]), &rc) != nil || rc.Format == 0 {
		return nil
	}
	return &rc
}

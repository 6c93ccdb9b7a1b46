// Package runview serves a local web page over one or more run folders:
// the curves of metrics.jsonl, the summary, the differences between the
// runs' resolved configs, and a browser of the sampled rollouts with
// their segments and loss masks (samples/*.jsonl, see internal/runlog).
//
// # Contract
//
// New takes run folders: a folder that holds config.yaml or metrics.jsonl
// (what artist train writes first). Anything else is an error wrapping
// ErrNotRunFolder that names the folder. The Server is an http.Handler;
// every asset of the page (HTML, JavaScript, CSS) is embedded, so the
// page works offline and loads nothing from elsewhere.
//
// The server reads only these files of each run folder, through
// os.OpenInRoot so no name escapes the folder (symbolic links out of it
// included): config.yaml, summary.json, metrics.jsonl and
// samples/<eval>.jsonl, where <eval> is a plain file name that a listing
// of samples/ returned. Runs are addressed by their index in New's
// arguments, never by a path. A request whose Host header is neither an
// IP address nor localhost is refused, so a page elsewhere that rebinds
// its host name to this machine cannot read the runs.
//
// # The page
//
// Curves: one chart per metric, grouped by the key's prefix (reward,
// eval, rollout, mismatch, loss, clip, grad, timing, throughput, tools,
// then any other prefix, then keys without one), every run overlaid in its own
// color, the raw points faint behind a debiased exponential moving
// average whose weight a slider sets. Charts draw on a canvas, long
// series reduced to one min/max envelope per pixel column, visible
// charts first and within a time budget per frame. The page polls
// /api/metrics every two seconds and redraws what grew. Each chart
// carries data-metric and data-points (the finite points of each run,
// space-separated); body gets data-ready="1" once the first load is
// drawn; window.artistView.firstPaintMs and allDrawnMs hold the times.
//
// Rollouts: the Sample records of one eval or all, filterable by
// verdict, family, stop reason and text; each segment is drawn in its
// kind's color with its token count, masked ones hatched and labelled
// "masked (not in loss)", tool results with their call status.
//
// Config: every key of every run's config.yaml, the differing ones
// highlighted; with several runs the differences also head the curves.
//
// # Endpoints
//
//	GET /                              the page; /static/... its assets
//	GET /api/runs                      [{id, name}]
//	GET /api/summary?run=I             summary.json as written (404 before the run ends)
//	GET /api/metrics?run=I&offset=N&check=C
//	GET /api/config                    every run's flattened config and the keys that differ
//	GET /api/evals?run=I               [{name, samples}] of samples/*.jsonl, in eval order
//	GET /api/samples?run=I&eval=NAME   the Sample records of one eval, as a JSON array
//
// /api/metrics follows a growing metrics.jsonl by byte offset: it
// returns the complete lines from offset on, in columns,
//
//	{"offset": N2, "check": C2, "reset": false, "steps": [...],
//	 "series": {"reward/mean": [...], ...}}
//
// where every series has one value (or null) per step, and the client
// asks next with offset=N2&check=C2. check fingerprints the bytes before
// the offset; when the file was rewritten (a resumed run drops the steps
// it redoes) or shrank, the fingerprint no longer matches and the answer
// starts over from offset 0 with reset true. A torn last line (no
// newline yet) is left for the next call.
package runview

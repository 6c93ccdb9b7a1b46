package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/envs/toollib"
)

const toolsUsage = `usage: artist tools COMMAND -db FILE ...
  add [-approve] [-by WHO] SOURCE.go...   verify and add tools (pending, or approved with -approve)
  import [-approve] [-by WHO] JSON...     add the tools of JSON library files
  search [-k N] [-state S] QUERY...       the tools that best match a query (approved by default)
  list [-state S]                         every tool, or those in state S
  pending                                 the tools waiting for a decision, with where they came from
  show ID                                 one tool: source, examples, verification, provenance, decision
  approve ID [-by WHO]                    approve a tool (WHO defaults to $USER)
  reject ID -reason TEXT [-by WHO]        reject a tool, saying why`

// toolsCommands are the subcommands of artist tools.
var toolsCommands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) error{
	"add":     runToolsAdd,
	"import":  runToolsImport,
	"search":  runToolsSearch,
	"list":    runToolsList,
	"pending": runToolsPending,
	"show":    runToolsShow,
	"approve": runToolsApprove,
	"reject":  runToolsReject,
}

// runTools dispatches the tool database subcommands.
func runTools(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, toolsUsage)
		return errUsage
	}
	if cmd, ok := toolsCommands[args[0]]; ok {
		return cmd(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "artist tools: unknown subcommand %q\n%s\n", args[0], toolsUsage)
	return errUsage
}

// toolsCmd is one parsed `artist tools NAME` command line.
type toolsCmd struct {
	name string
	fs   *flag.FlagSet
	db   string
	args []string // the arguments that are not flags, in order
	by   *string  // -by, for the commands that record a decision
	// creates is true for the commands that add tools (add, import),
	// which create a database that does not exist yet; the others refuse
	// a missing one rather than create it empty.
	creates bool
}

// newToolsCmd makes the flag set of `artist tools NAME`, -db included;
// withBy adds -by.
func newToolsCmd(name string, stderr io.Writer, withBy bool) *toolsCmd {
	c := &toolsCmd{name: name, fs: flag.NewFlagSet("tools "+name, flag.ContinueOnError), creates: name == "add" || name == "import"}
	c.fs.SetOutput(stderr)
	usage := "tool database `FILE` (SQLite; it must exist: tools add and import create it)"
	if c.creates {
		usage = "tool database `FILE` (SQLite; created when missing)"
	}
	c.fs.StringVar(&c.db, "db", "", usage)
	if withBy {
		c.by = c.fs.String("by", "", "`WHO` decides (default $USER)")
	}
	return c
}

// parse reads args, where flags may follow the other arguments
// ("approve 3 -by ada"), and requires -db.
func (c *toolsCmd) parse(args []string, stderr io.Writer) error {
	for {
		if err := c.fs.Parse(args); err != nil {
			return errUsage
		}
		if c.fs.NArg() == 0 {
			break
		}
		c.args = append(c.args, c.fs.Arg(0))
		args = c.fs.Args()[1:]
	}
	if c.db == "" {
		fmt.Fprintf(stderr, "artist tools %s: -db FILE is required\n", c.name)
		return errUsage
	}
	return nil
}

// who is the person a decision records: -by, else $USER.
func (c *toolsCmd) who(stderr io.Writer) (string, error) {
	if w := strings.TrimSpace(*c.by); w != "" {
		return w, nil
	}
	if w := os.Getenv("USER"); w != "" {
		return w, nil
	}
	fmt.Fprintf(stderr, "artist tools %s: name who decides with -by WHO ($USER is not set)\n", c.name)
	return "", errUsage
}

// id reads the one argument of show, approve and reject.
func (c *toolsCmd) id(stderr io.Writer) (int64, error) {
	if len(c.args) != 1 {
		fmt.Fprintf(stderr, "artist tools %s: give one tool ID (a number, as tools list prints)\n", c.name)
		return 0, errUsage
	}
	id, err := strconv.ParseInt(c.args[0], 10, 64)
	if err != nil {
		fmt.Fprintf(stderr, "artist tools %s: ID must be a tool id (a number, as tools list prints), got %q\n", c.name, c.args[0])
		return 0, errUsage
	}
	return id, nil
}

// noArgs refuses arguments to a command that takes none.
func (c *toolsCmd) noArgs(stderr io.Writer) error {
	if len(c.args) > 0 {
		fmt.Fprintf(stderr, "artist tools %s: unexpected argument %q\n", c.name, c.args[0])
		return errUsage
	}
	return nil
}

// stateFlag adds -state to c; "" stands for every state.
func (c *toolsCmd) stateFlag(def string) *string {
	return c.fs.String("state", def, "only tools in state `S`: pending, approved or rejected")
}

// states reads -state: "" is every state.
func states(s string) ([]toollib.State, error) {
	if s == "" {
		return toollib.States, nil
	}
	st, err := toollib.ParseState(s)
	return []toollib.State{st}, err
}

// withDB opens c's database for fn and closes it.
func (c *toolsCmd) withDB(fn func(*toollib.DB) error) error {
	if !c.creates {
		if _, err := os.Stat(c.db); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("tool database %s does not exist: check -db, or create it by adding tools (artist tools add -db %s FILE.go, or tools import)", c.db, c.db)
		}
	}
	d, err := toollib.OpenDB(c.db)
	if err != nil {
		return err
	}
	return errors.Join(fn(d), d.Close())
}

// runToolsAdd parses each file as one tool, verifies its examples in the
// sandbox and stores it as written by a person: pending, or approved
// with -approve. It stops at the first failing file, naming it; the tools
// before it stay added.
func runToolsAdd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newToolsCmd("add", stderr, true)
	approve := c.fs.Bool("approve", false, "approve the tools as they are added")
	if err := c.parse(args, stderr); err != nil {
		return err
	}
	if len(c.args) == 0 {
		fmt.Fprintln(stderr, "artist tools add: name at least one SOURCE.go file")
		return errUsage
	}
	who, err := c.approver(*approve, stderr)
	if err != nil {
		return err
	}
	return c.withSandboxDB(func(d *toollib.DB, s *sandbox.Sandbox) error {
		for _, f := range c.args {
			if err := addToolFile(ctx, d, s, f, who, stdout); err != nil {
				return err
			}
		}
		return nil
	})
}

// approver is who approves the tools a command adds: the -by person
// when approve is set, else "" (they stay pending).
func (c *toolsCmd) approver(approve bool, stderr io.Writer) (string, error) {
	if !approve {
		return "", nil
	}
	return c.who(stderr)
}

// withSandboxDB runs fn on the open database and a sandbox to verify
// tools in.
func (c *toolsCmd) withSandboxDB(fn func(*toollib.DB, *sandbox.Sandbox) error) error {
	return c.withDB(func(d *toollib.DB) error {
		s, err := sandbox.New(sandbox.DefaultConfig())
		if err != nil {
			return err
		}
		defer s.Close()
		return fn(d, s)
	})
}

// addToolFile adds the tool of one file, approves it when who is set, and
// prints it.
func addToolFile(ctx context.Context, d *toollib.DB, s *sandbox.Sandbox, file, who string, stdout io.Writer) error {
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	t, err := toollib.ParseTool(string(src))
	var id int64
	if err == nil {
		id, err = d.Add(ctx, s, t, toollib.Provenance{Source: "human"}, toollib.Pending)
	}
	if err == nil && who != "" {
		err = d.Approve(ctx, id, who)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	fmt.Fprintf(stdout, "added %d %s (%d cases, %s)\n", id, t.Signature, len(t.Cases), decision(who))
	return nil
}

func decision(who string) string {
	if who == "" {
		return "pending"
	}
	return "approved by " + who
}

// runToolsImport adds the tools of JSON library files, verified again, as
// pending or (with -approve) approved. A tool that fails is named and the
// others still import; the command then fails.
func runToolsImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newToolsCmd("import", stderr, true)
	approve := c.fs.Bool("approve", false, "approve the imported tools")
	if err := c.parse(args, stderr); err != nil {
		return err
	}
	if len(c.args) == 0 {
		fmt.Fprintln(stderr, "artist tools import: name at least one JSON library file")
		return errUsage
	}
	who, err := c.approver(*approve, stderr)
	if err != nil {
		return err
	}
	return c.withSandboxDB(func(d *toollib.DB, s *sandbox.Sandbox) error {
		var errs []error
		for _, f := range c.args {
			ids, err := d.ImportTools(ctx, s, f)
			errs = append(errs, err)
			for _, id := range ids {
				if who != "" {
					errs = append(errs, d.Approve(ctx, id, who))
				}
			}
			fmt.Fprintf(stdout, "imported %d tools from %s (%s)\n", len(ids), f, decision(who))
		}
		return errors.Join(errs...)
	})
}

// runToolsSearch prints the tools that best match the query.
func runToolsSearch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newToolsCmd("search", stderr, false)
	k := c.fs.Int("k", 3, "most tools to print")
	state := c.stateFlag(string(toollib.Approved))
	if err := c.parse(args, stderr); err != nil {
		return err
	}
	if len(c.args) == 0 || *k < 1 {
		fmt.Fprintln(stderr, "artist tools search: give a QUERY and -k of at least 1")
		return errUsage
	}
	sts, err := states(*state)
	if err != nil {
		return err
	}
	return c.withDB(func(d *toollib.DB) error {
		recs, err := d.Search(ctx, strings.Join(c.args, " "), *k, sts...)
		printRecords(stdout, recs, false)
		if err == nil && len(recs) == 0 {
			explainNoMatch(ctx, d, sts, stderr)
		}
		return err
	})
}

// runToolsList prints every tool, or those in one state.
func runToolsList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newToolsCmd("list", stderr, false)
	state := c.stateFlag("")
	if err := c.parse(args, stderr); err != nil {
		return err
	}
	if err := c.noArgs(stderr); err != nil {
		return err
	}
	sts, err := states(*state)
	if err != nil {
		return err
	}
	return c.withDB(func(d *toollib.DB) error {
		recs, err := d.List(ctx, sts...)
		printRecords(stdout, recs, false)
		return err
	})
}

// runToolsPending prints the tools waiting for a decision and where each
// came from.
func runToolsPending(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newToolsCmd("pending", stderr, false)
	if err := c.parse(args, stderr); err != nil {
		return err
	}
	if err := c.noArgs(stderr); err != nil {
		return err
	}
	return c.withDB(func(d *toollib.DB) error {
		recs, err := d.List(ctx, toollib.Pending)
		printRecords(stdout, recs, true)
		return err
	})
}

// printRecords prints one line per tool: id, state, signature and first
// sentence, and with provenance where it came from.
func printRecords(w io.Writer, recs []toollib.Record, provenance bool) {
	for _, r := range recs {
		line := fmt.Sprintf("%d\t%s\t%s", r.ID, r.State, strings.TrimSuffix(toollib.Listing([]toollib.Tool{r.Tool}), "\n"))
		if provenance {
			line += "\t(" + origin(r) + ", added " + r.Created.Format(time.RFC3339) + ")"
		}
		fmt.Fprintln(w, line)
	}
}

// origin says where a tool came from: its source, task and run.
func origin(r toollib.Record) string {
	s := "from " + r.Provenance.Source
	if r.Provenance.Task != "" {
		s += ", task " + r.Provenance.Task
	}
	if r.Provenance.Run != "" {
		s += ", run " + r.Provenance.Run
	}
	return s
}

// runToolsShow prints everything the database holds about one tool.
func runToolsShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newToolsCmd("show", stderr, false)
	if err := c.parse(args, stderr); err != nil {
		return err
	}
	id, err := c.id(stderr)
	if err != nil {
		return err
	}
	return c.withDB(func(d *toollib.DB) error {
		r, err := d.Get(ctx, id)
		if err != nil {
			return err
		}
		state := string(r.State)
		if r.Decider != "" {
			state += " by " + r.Decider + " at " + r.DecidedAt.Format(time.RFC3339)
		}
		fmt.Fprintf(stdout, "id: %d\nname: %s\nstate: %s\n", r.ID, r.Tool.Name, state)
		if r.Reason != "" {
			fmt.Fprintf(stdout, "reason: %s\n", r.Reason)
		}
		fmt.Fprintf(stdout, "origin: %s\ncreated: %s\nuses: %d\nsignature: %s\nverified: %t\n",
			strings.TrimPrefix(origin(r), "from "), r.Created.Format(time.RFC3339), r.Uses, r.Tool.Signature, r.Verified)
		for line := range strings.SplitSeq(strings.TrimRight(r.VerifyLog, "\n"), "\n") {
			fmt.Fprintf(stdout, "  %s\n", line)
		}
		fmt.Fprintf(stdout, "source:\n%s\n", strings.TrimRight(r.Tool.Source, "\n"))
		return nil
	})
}

// runToolsApprove approves a tool, recording who and when.
func runToolsApprove(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return decide(ctx, "approve", args, stdout, stderr, func(d *toollib.DB, id int64, who, _ string) error {
		return d.Approve(ctx, id, who)
	})
}

// runToolsReject rejects a tool, recording who, when and why.
func runToolsReject(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return decide(ctx, "reject", args, stdout, stderr, func(d *toollib.DB, id int64, who, reason string) error {
		return d.Reject(ctx, id, who, reason)
	})
}

// decide parses `approve|reject ID [-reason TEXT] [-by WHO]`, records the
// decision and prints it.
func decide(ctx context.Context, name string, args []string, stdout, stderr io.Writer, do func(d *toollib.DB, id int64, who, reason string) error) error {
	c := newToolsCmd(name, stderr, true)
	var reason *string
	if name == "reject" {
		reason = c.fs.String("reason", "", "why the tool is rejected (required)")
	}
	if err := c.parse(args, stderr); err != nil {
		return err
	}
	id, err := c.id(stderr)
	if err != nil {
		return err
	}
	why := ""
	if reason != nil {
		if why = strings.TrimSpace(*reason); why == "" {
			fmt.Fprintln(stderr, "artist tools reject: say why with -reason TEXT")
			return errUsage
		}
	}
	who, err := c.who(stderr)
	if err != nil {
		return err
	}
	return c.withDB(func(d *toollib.DB) error {
		if err := do(d, id, who, why); err != nil {
			return err
		}
		r, err := d.Get(ctx, id)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s %d %s (by %s)\n", r.State, r.ID, r.Tool.Name, who)
		return nil
	})
}

// explainNoMatch says on w why a search found nothing: no tool in the
// states searched (by default: none approved yet), or none that matches.
func explainNoMatch(ctx context.Context, d *toollib.DB, sts []toollib.State, w io.Writer) {
	in, err := d.List(ctx, sts...)
	if err != nil {
		return
	}
	what := "tools"
	if len(sts) == 1 {
		what = string(sts[0]) + " tools"
	}
	if len(in) > 0 {
		fmt.Fprintf(w, "no %s match the query (%d %s in %s)\n", what, len(in), what, d.Path())
		return
	}
	if n := d.Len(); len(sts) == 1 && sts[0] == toollib.Approved && n > 0 {
		fmt.Fprintf(w, "no approved tools in %s yet (%d waiting or rejected): see artist tools pending -db %s, then tools approve ID\n", d.Path(), n, d.Path())
		return
	}
	fmt.Fprintf(w, "no %s in %s\n", what, d.Path())
}

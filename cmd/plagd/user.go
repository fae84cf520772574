package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/plagd/plagd/audit"
	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/internal/cli"
)

func init() { register(newUserCmd) }

// newUserCmd is `plagd user`, the parent of the commands that manage who may
// use the web UI and the JSON API. They work on the database directly, so an
// operator with database access can always get in, even with no admin left.
func newUserCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "user",
		Short: "Manage web and API users: add, reset, token, list, tokens, revoke, role, disable, enable",
		Long: `Users log in to the web UI with a password, or call the JSON API with an
API token ("Authorization: Bearer plagd_..."). Each user has a role, and each
role may do what the ones before it may:

  teacher  reads reports and checks files
  staff    also uploads, edits and deletes documents
  admin    also triggers runs, sees the text of restricted documents, lifts
           restrictions, manages users and reads the audit log

Every change these commands make is recorded in the audit log (table
audit_log, the web's Audit page) as made by "cli:<os user>".

Passwords are stored as argon2id hashes, API tokens and sessions as SHA-256
hashes: neither is ever shown again after it is created.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	cmd.AddCommand(
		newUserAddCmd(g), newUserResetCmd(g), newUserTokenCmd(g),
		newUserListCmd(g), newUserTokensCmd(g), newUserRevokeCmd(g),
		newUserRoleCmd(g), newUserEnableCmd(g, false), newUserEnableCmd(g, true),
	)
	return cmd
}

// withStore opens the database (checking its schema) for one user command.
// The audit log records the command's changes as made by "cli:<os user>".
func withStore(ctx context.Context, g *globals, f func(*auth.Store) error) error {
	_, db, err := g.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return f(auth.NewStore(db.Pool).As(audit.CLIActor(), nil))
}

// nArgs is an Args check for subcommands of `plagd user`, which the root's
// usage-error wrapping does not reach: it names the arguments expected.
func nArgs(min, max int, usage string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || len(args) > max {
			return cli.UsageError{Msg: fmt.Sprintf("%s takes %s, got %d arguments (see '%s --help')",
				cmd.CommandPath(), usage, len(args), cmd.CommandPath())}
		}
		return nil
	}
}

// parseRole is auth.ParseRole for a command line: a bad role is a usage error.
func parseRole(s string) (auth.Role, error) {
	r, err := auth.ParseRole(s)
	if err != nil {
		return "", cli.UsageError{Msg: err.Error()}
	}
	return r, nil
}

// newPassword returns the password for `user add` and `user reset`: one line
// read from standard input with --password-stdin, or a generated one, in which
// case generated is true and the caller must show it.
func newPassword(fromStdin bool, stdin io.Reader) (password string, generated bool, err error) {
	if !fromStdin {
		return auth.GeneratePassword(), true, nil
	}
	if f, ok := stdin.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		fmt.Fprint(os.Stderr, "password (shown as you type): ")
	}
	line, err := bufio.NewReader(io.LimitReader(stdin, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", false, fmt.Errorf("read the password from standard input: %w", err)
	}
	password = strings.TrimRight(line, "\r\n")
	if password == "" {
		return "", false, cli.UsageError{Msg: "--password-stdin: standard input holds no password (give it as one line, e.g. printf '%s\\n' \"$PW\" | plagd user ...)"}
	}
	if err := auth.CheckPasswordPolicy(password); err != nil {
		return "", false, err
	}
	return password, false, nil
}

// showPassword prints a generated password, once.
func showPassword(name, password string) {
	printf("password for %s: %s\n", name, password)
	printf("It is shown only now: pass it on safely. Change it with `plagd user reset %s`.\n", name)
}

// newUserAddCmd is `plagd user add NAME --role ROLE`.
func newUserAddCmd(g *globals) *cobra.Command {
	var (
		role      string
		fromStdin bool
		ifMissing bool
	)
	cmd := &cobra.Command{
		Use:   "add NAME --role teacher|staff|admin [--password-stdin] [--if-missing]",
		Short: "Add a user, with a generated password unless --password-stdin",
		Long: `Add a user who logs in as NAME (lower-case letters, digits and . _ @ -;
an e-mail address works). Without --password-stdin a password is generated and
printed once. With --if-missing an existing user is left as it is, which makes
the command safe to repeat in set-up scripts.`,
		Args: nArgs(1, 1, "the user NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if role == "" {
				return cli.UsageError{Msg: "--role is required: one of teacher, staff, admin"}
			}
			r, err := parseRole(role)
			if err != nil {
				return err
			}
			name := args[0]
			return withStore(cmd.Context(), g, func(s *auth.Store) error {
				ctx := cmd.Context()
				exists := func(u auth.User) error {
					printf("user %s already exists (role %s); nothing changed\n", u.Name, u.Role)
					return nil
				}
				if ifMissing {
					if u, err := s.User(ctx, name); err == nil {
						return exists(u)
					} else if !errors.Is(err, auth.ErrNoUser) {
						return err
					}
				}
				password, generated, err := newPassword(fromStdin, cmd.InOrStdin())
				if err != nil {
					return err
				}
				u, err := s.AddUser(ctx, name, r, password)
				if errors.Is(err, auth.ErrUserExists) {
					if ifMissing { // added meanwhile by someone else
						if u, err := s.User(ctx, name); err == nil {
							return exists(u)
						}
					}
					return fmt.Errorf("%w; to give it a new password run `plagd user reset %s`, to change its role `plagd user role %s ROLE`",
						err, name, name)
				}
				if err != nil {
					return err
				}
				printf("added user %s (role %s)\n", u.Name, u.Role)
				if generated {
					showPassword(u.Name, password)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&role, "role", "", "teacher, staff or admin (required)")
	f.BoolVar(&fromStdin, "password-stdin", false, "read the password from the first line of standard input instead of generating one")
	f.BoolVar(&ifMissing, "if-missing", false, "do nothing, successfully, if the user exists")
	return cmd
}

// newUserResetCmd is `plagd user reset NAME`.
func newUserResetCmd(g *globals) *cobra.Command {
	var fromStdin bool
	cmd := &cobra.Command{
		Use:   "reset NAME [--password-stdin]",
		Short: "Give a user a new password and end their sessions",
		Long: `Set a new password for NAME: generated and printed once, or read from
standard input with --password-stdin. All of the user's browser sessions end;
their API tokens keep working (revoke them with 'plagd user revoke').`,
		Args: nArgs(1, 1, "the user NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			password, generated, err := newPassword(fromStdin, cmd.InOrStdin())
			if err != nil {
				return err
			}
			return withStore(cmd.Context(), g, func(s *auth.Store) error {
				u, err := s.User(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if err := s.SetPassword(cmd.Context(), u.Name, password); err != nil {
					return err
				}
				printf("new password set for %s; their sessions have ended\n", u.Name)
				if generated {
					showPassword(u.Name, password)
				}
				if u.Disabled {
					printf("note: %s is disabled; enable them with `plagd user enable %s`\n", u.Name, u.Name)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&fromStdin, "password-stdin", false, "read the password from the first line of standard input instead of generating one")
	return cmd
}

// parseExpires reads --expires: a Go duration (36h, 90m) or whole days (90d);
// "" or "never" is 0, no expiry.
func parseExpires(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "never" {
		return 0, nil
	}
	bad := cli.UsageError{Msg: fmt.Sprintf("--expires %q: give a positive duration such as 90d, 12h or 30m, or never", s)}
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 || n > 100*365 {
			return 0, bad
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d <= 0 {
			return 0, bad
		}
	}
	return d, nil
}

// newUserTokenCmd is `plagd user token NAME`.
func newUserTokenCmd(g *globals) *cobra.Command {
	var label, expires string
	cmd := &cobra.Command{
		Use:   "token NAME [--name LABEL] [--expires 90d]",
		Short: "Create an API token for a user and print it once",
		Long: `Create an API token that acts as user NAME, with NAME's role, in the JSON
API. Send it in every request:

  Authorization: Bearer plagd_...

The token is printed once; plagd stores only its hash. It works until it is
revoked ('plagd user revoke ID'), it expires (--expires), or the user is
disabled.`,
		Args: nArgs(1, 1, "the user NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ttl, err := parseExpires(expires)
			if err != nil {
				return err
			}
			return withStore(cmd.Context(), g, func(s *auth.Store) error {
				u, err := s.User(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				plaintext, tok, err := s.CreateToken(cmd.Context(), u.Name, label, ttl)
				if err != nil {
					return err
				}
				until := "never expires"
				if tok.ExpiresAt != nil {
					until = "expires " + formatTime(*tok.ExpiresAt)
				}
				printf("API token %d for %s (role %s, %s):\n\n  %s\n\n", tok.ID, u.Name, u.Role, until, plaintext)
				printf("It is shown only now. Send it with every API request:\n  Authorization: Bearer %s\n", plaintext)
				printf("Revoke it with `plagd user revoke %d`.\n", tok.ID)
				if u.Disabled {
					printf("note: %s is disabled; the token works once they are enabled (`plagd user enable %s`)\n", u.Name, u.Name)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&label, "name", "", "a label saying what or who uses the token, shown in 'plagd user tokens'")
	f.StringVar(&expires, "expires", "never", "lifetime: a duration such as 90d, 12h or 30m, or never")
	return cmd
}

// newUserListCmd is `plagd user list`.
func newUserListCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List users with their role and status",
		Args:  nArgs(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd.Context(), g, func(s *auth.Store) error {
				users, err := s.Users(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					return cli.PrintJSON(append([]auth.User{}, users...))
				}
				if len(users) == 0 {
					printf("no users yet: add one with `plagd user add NAME --role admin`\n")
					return nil
				}
				tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tROLE\tSTATUS\tCREATED")
				for _, u := range users {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.Name, u.Role, map[bool]string{false: "active", true: "disabled"}[u.Disabled], formatTime(u.CreatedAt))
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}

// newUserTokensCmd is `plagd user tokens [NAME]`.
func newUserTokensCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tokens [NAME] [--json]",
		Short: "List API tokens, of one user or of all",
		Args:  nArgs(0, 1, "at most one user NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			return withStore(cmd.Context(), g, func(s *auth.Store) error {
				toks, err := s.Tokens(cmd.Context(), name)
				if err != nil {
					return err
				}
				if asJSON {
					return cli.PrintJSON(append([]auth.Token{}, toks...))
				}
				if len(toks) == 0 {
					printf("no API tokens: create one with `plagd user token NAME`\n")
					return nil
				}
				now := time.Now()
				tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tUSER\tPREFIX\tLABEL\tCREATED\tLAST USED\tEXPIRES\tSTATUS")
				for _, t := range toks {
					fmt.Fprintf(tw, "%d\t%s\t%s…\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.UserName, t.Prefix, orDash(oneLine(t.Name, 40)),
						formatTime(t.CreatedAt), timeOr(t.LastUsed, "never"), timeOr(t.ExpiresAt, "never"), tokenStatus(t, now))
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}

func tokenStatus(t auth.Token, now time.Time) string {
	switch {
	case t.Revoked:
		return "revoked"
	case t.ExpiresAt != nil && !now.Before(*t.ExpiresAt):
		return "expired"
	}
	return "active"
}

func timeOr(t *time.Time, none string) string {
	if t == nil {
		return none
	}
	return formatTime(*t)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// newUserRevokeCmd is `plagd user revoke TOKEN_ID`.
func newUserRevokeCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke TOKEN_ID",
		Short: "Revoke an API token (IDs are in 'plagd user tokens')",
		Args:  nArgs(1, 1, "the TOKEN_ID shown by 'plagd user tokens'"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return cli.UsageError{Msg: fmt.Sprintf("token id %q is not a number: give the ID column of 'plagd user tokens' (not the token itself)", args[0])}
			}
			return withStore(cmd.Context(), g, func(s *auth.Store) error {
				if err := s.RevokeToken(cmd.Context(), id); err != nil {
					return err
				}
				printf("API token %d is revoked\n", id)
				return nil
			})
		},
	}
}

// newUserRoleCmd is `plagd user role NAME ROLE`.
func newUserRoleCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "role NAME teacher|staff|admin",
		Short: "Change a user's role (effective at their next request)",
		Args:  nArgs(2, 2, "the user NAME and a ROLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := parseRole(args[1])
			if err != nil {
				return err
			}
			return withStore(cmd.Context(), g, func(s *auth.Store) error {
				if err := s.SetRole(cmd.Context(), args[0], r); err != nil {
					return err
				}
				printf("%s is now %s\n", strings.ToLower(strings.TrimSpace(args[0])), r)
				return nil
			})
		},
	}
}

// newUserEnableCmd is `plagd user disable NAME` (disable) or `plagd user enable NAME`.
func newUserEnableCmd(g *globals, disable bool) *cobra.Command {
	verb, short := "enable", "Let a disabled user log in and use their API tokens again"
	if disable {
		verb, short = "disable", "Stop a user: end their sessions, refuse their logins and API tokens"
	}
	return &cobra.Command{
		Use:   verb + " NAME",
		Short: short,
		Args:  nArgs(1, 1, "the user NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd.Context(), g, func(s *auth.Store) error {
				u, err := s.User(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if err := s.SetDisabled(cmd.Context(), u.Name, disable); err != nil {
					return err
				}
				if disable {
					printf("%s is disabled: sessions ended, logins and API tokens refused until `plagd user enable %s`\n", u.Name, u.Name)
				} else {
					printf("%s is enabled\n", u.Name)
				}
				return nil
			})
		},
	}
}

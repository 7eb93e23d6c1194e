package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence"
)

func newCacheCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "Manage the private home layers kept per workspace",
		Long: `Commands confined by ringfence read the real home directory but write
into a private copy-on-write layer kept per workspace (under
$XDG_STATE_HOME/ringfence, default ~/.local/state/ringfence), so toolchain
caches stay warm from run to run and the real home never changes.`,
	}
	cmd.AddCommand(newCacheClearCmd())
	return cmd
}

func newCacheClearCmd() *cobra.Command {
	var root string
	var all bool
	cmd := &cobra.Command{
		Use:   "clear [--root DIR | --all]",
		Short: "Drop a workspace's private home layer (default: the current directory's)",
		Long: `clear removes the private home layer of the workspace --root (default the
current directory): every cache and file its confined commands wrote under
home. --all removes the layers of every workspace. The real home is not
touched.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if all && cmd.Flags().Changed("root") {
				return fmt.Errorf("--root and --all exclude each other")
			}
			r := root
			if all {
				r = ""
			} else if r == "" {
				r = "."
			}
			dir, err := ringfence.ClearHome(ringfence.HomeConfig{}, r)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed %s\n", dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&root, "root", "", "the workspace `DIR` whose layer to drop (default: the current directory)")
	cmd.Flags().BoolVar(&all, "all", false, "drop the layers of every workspace")
	return cmd
}

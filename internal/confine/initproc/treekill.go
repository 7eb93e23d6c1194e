package initproc

// treeBelow lists every process below root, as children reports each
// process's children, breadth-first and each once (a pid seen twice, as
// a reused one might be mid-walk, is not walked again).
func treeBelow(root int, children func(pid int) []int) []int {
	seen := map[int]bool{root: true}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children(p) {
			if c <= 1 || seen[c] {
				continue
			}
			seen[c] = true
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

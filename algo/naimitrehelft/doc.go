// Package naimitrehelft implements Naimi and Trehel's token algorithm with
// its failure detection and token regeneration (M. Naimi and M. Trehel,
// "How to detect a failure and regenerate the token in the log(n)
// distributed algorithm for mutual exclusion", WDAG 1987), as the survey
// of Velazquez (1993, §4) describes it: --algo naimi-trehel-ft.
package naimitrehelft

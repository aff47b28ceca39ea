/* compare_ui: `spacetime compare A B`, two recorded runs side by side (the
 * engine: src/compare.h). */
#ifndef SPACETIME_COMPARE_UI_H
#define SPACETIME_COMPARE_UI_H

/* Runs the command: argv[0] is "compare". Returns the exit status: 0, 1
 * when --fail-above's gate failed, 2 on a usage error or a run that cannot
 * be read. */
int compare_main(int argc, char **argv);

#endif

/* roles: the semantic colour roles of the dashboard. Widgets name a role; term.c
 * maps each one once to colours, or to bold/reverse/underline on a monochrome
 * terminal or with NO_COLOR. No curses here, so pure modules can use it. */
#ifndef SPACETIME_ROLES_H
#define SPACETIME_ROLES_H

enum role {
	ROLE_NORMAL = 0,
	ROLE_HEADER,    /* the top bar */
	ROLE_HEADER_HI, /* the command in the top bar */
	ROLE_TITLE,     /* a pane's title row */
	ROLE_FOCUS,     /* the focused pane's title */
	ROLE_PAUSED,    /* the PAUSED mark */
	ROLE_OK,        /* running, exit 0 */
	ROLE_BAD,       /* non-zero exit, signals, lost events */
	ROLE_WARN,      /* notices, prompts */
	ROLE_DIM,       /* axes, labels, secondary text */
	ROLE_KEY,       /* key names in hints */
	ROLE_SELECTED,  /* the selected process row */
	ROLE_CURSOR,    /* the timeline cursor */
	ROLE_ANON,      /* PSS anonymous */
	ROLE_FILE,      /* PSS file-backed */
	ROLE_SHMEM,     /* PSS shared memory */
	ROLE_EST,       /* PSS estimated, not measured: dimmer than the layers */
	ROLE_RSS,       /* the RSS line */
	ROLE_PROCS,     /* live processes */
	ROLE_THREADS,   /* live threads */
	ROLE_MINOR,     /* minor faults */
	ROLE_MAJOR,     /* major faults: must stand out */
	ROLE_USER,      /* CPU user */
	ROLE_SYS,       /* CPU system */
	ROLE_GHOST,     /* another run's PSS (replay --against), its peak */
	ROLE_OUT0,      /* the command's colours 0..7 (0 shown as default), then bold */
	ROLE_COUNT = ROLE_OUT0 + 16,
};

#endif

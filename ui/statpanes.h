/* statpanes: the dashboard's statistics boxes (tasks, faults, CPU), each a
 * text readout at the view's instant over a small graph of the visible range,
 * or one or two text rows on a narrow terminal. Drawn from the frame panes.c
 * prepared (its bucket copy and helpers). */
#ifndef SPACETIME_STATPANES_H
#define SPACETIME_STATPANES_H

#include "panes.h"

void statpanes_draw(struct panes *p);

#endif

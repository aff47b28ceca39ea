/* forecast_ui: `spacetime forecast RUN`, what -j fits in how much memory,
 * from a recorded build (the engine: src/forecast.h, src/forecast_rec.h). */
#ifndef SPACETIME_FORECAST_UI_H
#define SPACETIME_FORECAST_UI_H

/* Runs the command: argv[0] is "forecast". Returns the exit status: 0, 1
 * when --ram was given and no -j tried fits (with -j N: N does not), 2 on
 * a usage error or a run that cannot be read or forecast. */
int forecast_main(int argc, char **argv);

#endif

// agtmux: the command-line entry point. Everything lives in cli/.
#include "cli/command.h"

int main(int argc, char** argv) { return agt::cli::Main(argc, argv); }

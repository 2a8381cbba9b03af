// Placeholder until the window lands.
#include <cstdio>
int main() { std::fputs("loadscope: the window is not built yet\n", stderr); return 1; }

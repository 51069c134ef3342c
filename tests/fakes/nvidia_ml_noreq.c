/*
 * nvidia_ml_noreq.c - a broken fake NVIDIA management library (built as
 * build/fakes/libnvidia_ml_noreq.so): nvmlInit_v2 and nvmlShutdown, but no
 * nvmlDeviceGetCount under any name, a symbol the nvml source requires.
 * collect/nvml_test.c checks that open then fails and names the symbol.
 */
int nvmlInit_v2(void);
int nvmlShutdown(void);

int nvmlInit_v2(void)
{
	return 0;
}

int nvmlShutdown(void)
{
	return 0;
}

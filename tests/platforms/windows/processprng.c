/* A stand-in for Windows' bcryptprimitives.dll, which wine 8 lacks: Rust's
 * std (1.78 and later) takes its random bytes from ProcessPrng there. This
 * one answers from RtlGenRandom (advapi32's SystemFunction036), which wine
 * has. Built by run.sh into the test wine prefix only; never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}

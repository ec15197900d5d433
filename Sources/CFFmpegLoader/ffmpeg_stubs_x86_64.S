// Jump stubs for lazily loaded FFmpeg functions; see ffmpeg_loader.c for why.
#if defined(__linux__) && defined(__x86_64__)

        .section .note.GNU-stack,"",@progbits

// Each FFmpeg function: jump through its table slot. Until resolved, the slot points at the
// function's "lazy" entry, which loads its index into %r11 (not an argument register) and goes to
// the common resolver.
#define AVP_SYMBOL(index, name)                 \
        .text;                                  \
        .globl name;                            \
        .hidden name;                           \
        .type name, @function;                  \
name:   jmp *avp_ffmpeg_table+8*index(%rip);    \
        .size name, .-name;                     \
avp_lazy_##index:                               \
        movl $index, %r11d;                     \
        jmp avp_ffmpeg_common;
#include "ffmpeg_symbols.h"
#undef AVP_SYMBOL

// Saves every register that may carry arguments (rdi rsi rdx rcx r8 r9, rax = vector count of
// variadic calls, xmm0-7) and the index, resolves the table (the index says which function is
// wanted, in case it is missing), restores, and jumps to the function.
        .text
        .type avp_ffmpeg_common, @function
avp_ffmpeg_common:
        pushq %rbp
        movq %rsp, %rbp
        subq $208, %rsp
        andq $-16, %rsp
        movdqa %xmm0, 0(%rsp)
        movdqa %xmm1, 16(%rsp)
        movdqa %xmm2, 32(%rsp)
        movdqa %xmm3, 48(%rsp)
        movdqa %xmm4, 64(%rsp)
        movdqa %xmm5, 80(%rsp)
        movdqa %xmm6, 96(%rsp)
        movdqa %xmm7, 112(%rsp)
        movq %rdi, 128(%rsp)
        movq %rsi, 136(%rsp)
        movq %rdx, 144(%rsp)
        movq %rcx, 152(%rsp)
        movq %r8, 160(%rsp)
        movq %r9, 168(%rsp)
        movq %rax, 176(%rsp)
        movq %r11, 184(%rsp)
        movq %r11, %rdi
        call avp_ffmpeg_resolve
        movdqa 0(%rsp), %xmm0
        movdqa 16(%rsp), %xmm1
        movdqa 32(%rsp), %xmm2
        movdqa 48(%rsp), %xmm3
        movdqa 64(%rsp), %xmm4
        movdqa 80(%rsp), %xmm5
        movdqa 96(%rsp), %xmm6
        movdqa 112(%rsp), %xmm7
        movq 128(%rsp), %rdi
        movq 136(%rsp), %rsi
        movq 144(%rsp), %rdx
        movq 152(%rsp), %rcx
        movq 160(%rsp), %r8
        movq 168(%rsp), %r9
        movq 176(%rsp), %rax
        movq 184(%rsp), %r11
        movq %rbp, %rsp
        popq %rbp
        leaq avp_ffmpeg_table(%rip), %r10
        jmp *(%r10,%r11,8)
        .size avp_ffmpeg_common, .-avp_ffmpeg_common

// The table, each slot first pointing at its lazy entry.
        .data
        .balign 8
        .globl avp_ffmpeg_table
        .hidden avp_ffmpeg_table
avp_ffmpeg_table:
#define AVP_SYMBOL(index, name) .quad avp_lazy_##index;
#include "ffmpeg_symbols.h"
#undef AVP_SYMBOL

#endif

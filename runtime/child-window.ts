// Script of the provider's child-window page (placeholder until the child window lands).
export {};

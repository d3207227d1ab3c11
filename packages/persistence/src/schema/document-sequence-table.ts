export interface DocumentSequenceTable {
  tenant_id: string;
  prefix: string;
  last_value: number;
}
